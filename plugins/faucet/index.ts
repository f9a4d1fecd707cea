import { normalizeAddress } from '../../sdk/address.js';
import { devnetKey } from '../../sdk/keys.js';
import { withNativeSigner } from '../../keys/native-signer.js';
import { AddressSchema } from '../../chain/schemas.js';
import { definePlugin, param } from '../../kernel/plugin.js';
import { TxFailure } from '../../chain/contract.js';
import { encode } from '../../sdk/encoding.js';
import { u64, utf8Text } from '../../kernel/storage/codec.js';
import { defineLayout } from '../../kernel/storage/layout.js';
import { Faucet, grantKey, lastGrantAt, type Grant } from './service.js';
import { answerGrant, askForGrant, AUTHORITY_TIMEOUT_MS, FAUCET_PROTOCOL } from './authority.js';
import { domainError, isRpcError } from '../../sdk/errors.js';
import type { Address } from '../../sdk/address.js';
import type { P2pService } from '../../p2p/service.js';
import { FaucetConfigSchema, FaucetResultSchema, FaucetStatusSchema, MintPayloadSchema } from './schemas.js';
import { FAUCET_ERRORS } from './errors.js';
import { timeoutSignal } from '../../kernel/timeout-signal.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    faucet: Faucet;
  }
}

/** When this node last granted each address: cooldowns survive a restart before the grant is mined. */
const COOLDOWNS = defineLayout('faucet.cooldowns', utf8Text('address'), u64('unix ms of its last grant by this node'));

export default definePlugin({
  name: 'faucet',
  errors: FAUCET_ERRORS,
  version: '1.0.0',
  description: 'devnet faucet: faucet_request mints 10 OMC + 5 OGT (configurable) per address per cooldown',
  requires: ['chain-reader', 'tx-submitter', 'p2p'],
  config: FaucetConfigSchema,
  namespaces: [COOLDOWNS],
  async init(ctx) {
    const chain = ctx.use('chain-reader');
    if (ctx.node.network !== 'devnet')
      throw new Error(`faucet: only available on devnet, not on network "${ctx.node.network}"`);
    // The faucet account is the published dev seed's faucet key: the only signer `faucet.mint` accepts.
    const key = withNativeSigner(devnetKey('faucet', 0));
    const p2p = ctx.use('p2p');
    const { authority: authorityPeer, ...settings } = ctx.config;
    // Its own peer id is known once the network has started: a config naming this node decides here.
    const authority =
      authorityPeer === undefined
        ? undefined
        : (address: Address) =>
            authorityPeer === p2p.peerId ? faucet.decide(address) : grantFrom(p2p, authorityPeer, address, ctx.signal);
    const faucet: Faucet = new Faucet({
      chain,
      submitter: ctx.use('tx-submitter'),
      key,
      cooldowns: ctx.table(COOLDOWNS),
      ...settings,
      log: ctx.log,
      ...(authority ? { authority } : {}),
    });
    await faucet.load();
    ctx.events.on('chain:block', (event) => faucet.afterBlock(event.block.transactions));
    ctx.events.on('chain:journalReplayed', (event) => faucet.afterRestart(event.pending, event.superseded));
    const sweeper = setInterval(() => faucet.sweep(), 60_000);
    sweeper.unref();
    ctx.signal.addEventListener('abort', () => clearInterval(sweeper));
    return faucet;
  },
  async start(faucet, ctx) {
    // Only the deciding node answers the protocol: a node that asks another never decides for a third.
    const { authority } = ctx.config;
    if (authority !== undefined && authority !== ctx.use('p2p').peerId) {
      ctx.log.info({ authority }, `faucet grants are decided by ${authority}`);
      return;
    }
    await ctx
      .use('p2p')
      .handleProtocol(
        FAUCET_PROTOCOL,
        (stream) =>
          answerGrant(stream, (address) => faucet.decide(address), timeoutSignal(AUTHORITY_TIMEOUT_MS, ctx.signal)),
        { maxInboundStreams: 32 },
      );
  },
  txKinds: (kind) => [
    kind({
      kind: 'faucet.mint',
      summary: 'creates OMC and OGT for an account; only the genesis faucet account may sign it',
      payload: MintPayloadSchema,
      authorize: (tx, _payload, faucet) =>
        tx.from === faucet.address ? undefined : `only the faucet account ${faucet.address} may mint`,
      execute(ctx) {
        const to = normalizeAddress(ctx.payload.to);
        // The cooldown is per address across the network, judged by block time: a grant minted by
        // another node (or this one, twice) within the minting node's cooldown fails here.
        const cooldown = ctx.payload.cooldownSeconds;
        if (cooldown !== undefined) {
          const last = lastGrantAt((key) => ctx.readState(key), to);
          if (last !== undefined && ctx.timestamp - last < cooldown * 1000) {
            throw new TxFailure(
              'cooldown_active',
              `${to} was granted ${Math.floor((ctx.timestamp - last) / 1000)} s before this block, within the ${cooldown} s cooldown`,
            );
          }
          ctx.writeState(grantKey(to), encode(ctx.timestamp));
        }
        ctx.credit(to, 'OMC', BigInt(ctx.payload.omc));
        ctx.credit(to, 'OGT', BigInt(ctx.payload.ogt));
      },
    }),
  ],
  rpc: (method) => [
    method({
      name: 'faucet_request',
      summary: 'Mints the devnet grant to an address; the next block includes it. Once per address per cooldown.',
      params: [param('address', AddressSchema)],
      result: FaucetResultSchema,
      errors: [
        'invalid_address',
        'invalid_params',
        'cooldown_active',
        'rate_limited',
        'mempool_full',
        'faucet_unavailable',
      ],
      handler: ([address], { service, clientAddress }) => service.request(normalizeAddress(address), clientAddress),
    }),
    method({
      name: 'faucet_status',
      summary: 'Whether an address may ask the faucet now, and if not, from when.',
      params: [param('address', AddressSchema)],
      result: FaucetStatusSchema,
      errors: ['invalid_address'],
      handler: ([raw], { service, clientAddress }) => service.status(normalizeAddress(raw), clientAddress),
    }),
  ],
});

/** A grant asked of the network's authority; an authority that cannot be reached or does not answer in time: `faucet_unavailable`. */
async function grantFrom(p2p: P2pService, peer: string, address: Address, stopping: AbortSignal): Promise<Grant> {
  const signal = timeoutSignal(AUTHORITY_TIMEOUT_MS, stopping);
  try {
    return await askForGrant(await p2p.openStream(peer, FAUCET_PROTOCOL, signal), address, signal);
  } catch (error) {
    if (isRpcError(error)) throw error;
    throw domainError(
      'faucet_unavailable',
      `the node that decides this network's faucet grants (${peer}) did not answer: ${(error as Error).message}`,
      { authority: peer },
    );
  }
}
