import { readFileSync } from 'node:fs';
import Type from 'typebox';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { devnetKey, keyPairFromSecret, type KeyPair } from '../../sdk/keys.js';
import { definePlugin } from '../../kernel/plugin.js';
import { withNativeSigner } from '../../keys/native-signer.js';
import { ValidatorRole } from './role.js';

function loadKey(keyFile: string | undefined, network: string): KeyPair {
  if (!keyFile) {
    if (network !== 'devnet')
      throw new Error(
        `validator: network ${network} needs "validator.keyFile" (a file holding the 32-byte secret key as hex)`,
      );
    return withNativeSigner(devnetKey('validator', 0));
  }
  try {
    return withNativeSigner(keyPairFromSecret(fromHex(readFileSync(keyFile, 'utf8').trim())));
  } catch (error) {
    throw new Error(`validator.keyFile ${keyFile}: ${(error as Error).message}`);
  }
}

declare module '../../kernel/plugin.js' {
  interface SvcEvents {
    /** This validator entered a round of consensus (round 0 of each height too). */
    'consensus:round': { height: number; round: number };
    /** A consensus vote this validator signed and sent (out) or took in from a peer (in). */
    'consensus:vote': { type: 'prevote' | 'precommit'; direction: 'in' | 'out' };
    /** A block this validator decided was committed: the round, and the time from its proposal arriving (or being made) here to the commit. */
    'consensus:committed': { height: number; round: number; proposalToCommitMs: number };
  }
}

export default definePlugin({
  name: 'validator',
  version: '1.0.0',
  description:
    'alone in the validator set: produces a signed block every block time, also when empty; in a set of several: runs consensus (Tendermint) with the others; outside the set: follows',
  requires: ['block-production', 'consensus-chain', 'staking', 'p2p', 'sync-status'],
  // The node's block producer: the chain and the network see it by this capability.
  provides: ['block-producer'],
  events: {
    'consensus:round': 'this validator entered a round of consensus',
    'consensus:vote': 'a consensus vote was sent or taken in',
    'consensus:committed': 'a block decided by consensus was committed',
  },
  config: Type.Object(
    {
      blockTime: Type.Integer({
        minimum: 10,
        maximum: 3_600_000,
        default: 3000,
        description: 'block interval, ms (--block-time)',
      }),
      dev: Type.Boolean({
        default: false,
        description: 'dev mode (--dev, set from the node config): automine, mining on demand, a movable clock',
      }),
      keyFile: Type.Optional(
        Type.String({
          minLength: 1,
          description:
            "hex secret key this validator signs blocks and votes with (its consensus key); devnet uses the genesis validator's built-in dev key",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  configFromNode: (node) => ({ dev: node.dev === true }),
  init(ctx) {
    const chain = ctx.use('consensus-chain');
    const key = loadKey(ctx.config.keyFile, ctx.node.network);
    const genesis = toHex(key.publicKey) === chain.genesis.validatorKey;
    ctx.log.info(
      { proposer: key.address, consensusKey: toHex(key.publicKey), blockTime: ctx.config.blockTime },
      genesis
        ? 'validator key loaded (the genesis validator)'
        : 'validator key loaded (in the set once staked with this consensus key)',
    );
    const staking = ctx.use('staking');
    const role = new ValidatorRole({
      chain,
      staking,
      p2p: ctx.use('p2p'),
      sync: ctx.use('sync-status'),
      events: ctx.events,
      key,
      blockTime: ctx.config.blockTime,
      dataDir: ctx.node.dataDir,
      log: ctx.log,
      dev: ctx.config.dev,
    });
    // svc_consensusState (answered on every node by the staking rules) shows this validator's own round too.
    staking.attachValidator(() => role.consensusState());
    return role;
  },
  start: (role) => role.start(),
  // A validator in the set whose last block is older than 5 block times is not producing: not healthy.
  notReady: (role) => (role.stalled ? 'stalled' : undefined),
  health: (role) => role.health(),
  stop: (role) => role.stop(),
});
