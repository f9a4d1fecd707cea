import { genesisHeightOf } from '../../chain/genesis.js';
import Type, { type Static } from 'typebox';
import { definePlugin, optionalParam, param, type RpcMethod } from '../../kernel/plugin.js';
import { BLOCK_PRODUCER } from '../../chain/capabilities.js';
import { domainError } from '../../sdk/errors.js';
import { normalizeAddress, addressOfHex, hexOfAddress, toEthAddress, type Address } from '../../sdk/address.js';
import { AddressSchema } from '../../chain/schemas.js';
import { devnetKey } from '../../sdk/keys.js';
import { signTransaction, type Payload } from '../../sdk/transaction.js';
import { withNativeSigner } from '../../keys/native-signer.js';
import type { ValidatorRole } from '../validator/role.js';
import type { DevClock, DevMiner } from '../validator/dev-miner.js';
import {
  DEV_IMPERSONATED_KIND,
  DEV_SET_KIND,
  IMPERSONATED_TYPES_SINCE,
  type DevImpersonated,
  type DevSet,
  nonceField,
} from '../evm/dev-edits.js';
import { ethereumTypeOf, refuseBlobs } from '../evm/eth/transaction-type.js';
import { EthRpcError } from '../evm/eth/errors.js';
import { CallObject } from '../evm/eth/methods.js';
import { DataSchema, EthAddressSchema, Hash32Schema, QuantitySchema } from '../evm/eth/quantity.js';
import { Units as UnitsOf } from '../evm/payload-schemas.js';
import { decodeAccount, accountKey } from '../../chain/state/accounts.js';
import { DEV_ERRORS } from './errors.js';
import { UnlockedAccounts } from './unlocked-accounts.js';
import { signingMethods } from './signing-methods.js';
import { jobAndDealMethods } from './job-deal-methods.js';
import { paramMethods } from './param-methods.js';
import { nodeMethods } from './node-methods.js';
import { decodeDump, dumpState, editsFor, encodeDump, type StateDump } from './state-dump.js';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { randomBytes } from 'node:crypto';
import { VERSION } from '../../kernel/version.js';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { ConfigError } from '../../kernel/config/config-error.js';
import type { HDAccount } from 'viem/accounts';
import type { EthCallObject } from '../evm/eth/api.js';

/** A number as Anvil's methods take it: a JSON number or a hex quantity (viem sends hex, `cast rpc` either). */
const toNumber = (value: number | string): number =>
  typeof value === 'number' ? value : Number.parseInt(value.slice(2), 16);
/** Up to 2^53 − 1: a count or time above it would lose precision here (and no test needs one). */
const Count = Type.Refine(
  Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^0x[0-9a-fA-F]{1,16}$' })], {
    description: 'a number or a hex quantity, at most 2^53 − 1',
  }),
  (value) => toNumber(value as number | string) <= Number.MAX_SAFE_INTEGER,
  () => 'is above 2^53 − 1',
);
/** A nonce as Anvil takes it: a number or a hex quantity, up to 2^64 − 1 (EIP-2681). */
const Nonce = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^0x[0-9a-fA-F]{1,16}$' })], {
  description: 'a number or a hex quantity, at most 2^64 − 1',
});
const Null = Type.Null();
const MAX_MINE = 10_000;

const Units = UnitsOf('base units, decimal');
const word32 = (hex: string): string => `0x${hex.slice(2).toLowerCase().padStart(64, '0')}`;

const DevConfig = Type.Object(
  {
    loadState: Type.Optional(Type.String({ minLength: 1, description: 'a state dump loaded at start' })),
    dumpState: Type.Optional(Type.String({ minLength: 1, description: 'where the state is dumped at stop' })),
  },
  { additionalProperties: false, default: {} },
);

/** Where dev mode's controls are: the block producer's, when this node was started with --dev. */
export interface DevControls {
  miner(): DevMiner;
  /** Applies a state edit as a transaction signed by the devnet validator, in a block before it answers. */
  edit(edit: Omit<DevSet, 'address'> & { address: string }): Promise<void>;
  /** Applies state edits as transactions mined together (as few blocks as they fit in) before it answers. */
  editAll(edits: readonly DevSet[]): Promise<void>;
  /**
   * Sends dev-mode transactions of `kind` (one per payload) signed by the devnet validator, mined
   * before it answers; throws with the receipt's error when one failed. Their hashes.
   */
  submitDev(kind: string, payloads: readonly object[]): Promise<string[]>;
  /** The head's accounts and contracts as Anvil dumps them. */
  dumpState(): StateDump;
  /** Makes the state hold every account of a dump as the dump has it (Anvil's load); how many edits it took. */
  loadState(dump: StateDump): Promise<number>;
  /** Lowercase 0x addresses `eth_sendTransaction` may send from unsigned. */
  readonly impersonated: Set<string>;
  autoImpersonate: boolean;
  /** Sends an unsigned transaction: signed with its key from an unlocked account, else as an impersonated one; its hash. */
  sendAs(call: Static<typeof CallObject>): Promise<string>;
  /** The accounts this node signs for in dev mode (none elsewhere), checksummed. */
  accounts(): string[];
  /** An unlocked account's signer (dev mode); geth's "unknown account" for any other. */
  signer(address: string): HDAccount;
  /** Takes a pending transaction out of the mempool (false: not pending). */
  dropPending(hash: string): boolean;
  /** `anvil_nodeInfo`'s answer. */
  nodeInfo(): Record<string, unknown>;
  /** `anvil_metadata`'s answer: the client, the chain, this run's instance id, the head and the snapshots. */
  metadata(): Record<string, unknown>;
  /** Prints contracts' console.log lines in the log, or stops (anvil_setLoggingEnabled). */
  setLogging(on: boolean): void;
  /** Keeps the head and the clock; the snapshot's id. */
  snapshot(): string;
  /** Takes the chain back to a snapshot (false: no such snapshot); it and every later one are dropped. */
  revert(id: string): Promise<boolean>;
  /** Takes the chain back to its genesis block, with the clock, snapshots and impersonations as at start (Anvil's reset). */
  reset(): Promise<void>;
}

/** A point `evm_revert` can go back to: the head's height and the block clock then. */
interface Snapshot {
  readonly id: number;
  readonly height: number;
  readonly hash: string;
  readonly clock: DevClock;
}

const NOT_SERVED =
  'eth_sendTransaction is not served: this node holds no user keys; sign the transaction in your wallet or tool (cast send --private-key, a viem or ethers account) and send it with eth_sendRawTransaction (a node in dev mode also sends as an account impersonated with anvil_impersonateAccount)';

/**
 * Anvil's and Hardhat's test methods on a dev-mode node (`svc-node start --dev`): mining on demand,
 * automine, interval mining and the block clock, under Anvil's names and parameter shapes so viem's
 * test client (`mode: 'anvil'`) and `cast rpc` drive them. Listed on every node, so that any other
 * node answers `dev_mode_off` rather than "method not found".
 */
export default definePlugin({
  name: 'dev',
  errors: DEV_ERRORS,
  version: '1.0.0',
  description:
    "dev mode's test methods (evm_mine, anvil_mine, evm_setAutomine, evm_setIntervalMining, evm_increaseTime, evm_setNextBlockTimestamp, evm_snapshot, evm_revert, anvil_setBalance, svc_devSetBalance, anvil_setNonce, anvil_setCode, anvil_setStorageAt, impersonation): on a node started with --dev; dev_mode_off elsewhere",
  requires: ['chain-reader', 'chain-rewind', 'tx-submitter', 'evm', 'p2p'],
  config: DevConfig,
  configFromNode: (node) => {
    const file = (key: string): string | undefined =>
      typeof node[key] === 'string' ? (node[key] as string) : undefined;
    const state = file('state');
    if (node.dev !== true && (state ?? file('loadState') ?? file('dumpState')) !== undefined)
      throw new ConfigError('--load-state, --dump-state and --state are for dev mode: start with --dev');
    const load = file('loadState') ?? (state !== undefined && existsSync(state) ? state : undefined);
    const dump = file('dumpState') ?? state;
    return { ...(load ? { loadState: load } : {}), ...(dump ? { dumpState: dump } : {}) };
  },
  async start(service: DevControls, ctx) {
    if (ctx.config.loadState === undefined) return;
    const file = ctx.config.loadState;
    let dump: StateDump;
    try {
      dump = decodeDump(readFileSync(file));
    } catch (error) {
      throw new ConfigError(`--load-state ${file}: ${(error as Error).message}`);
    }
    const edits = await service.loadState(dump);
    ctx.log.info(
      { file, accounts: Object.keys(dump.accounts).length, edits },
      `loaded the state of ${file}: ${Object.keys(dump.accounts).length} accounts`,
    );
  },
  async stop(service: DevControls, ctx) {
    if (ctx.config.dumpState === undefined) return;
    const file = ctx.config.dumpState;
    // Written whole, then moved into place: a stop that is cut short leaves the last dump, never half of one.
    writeFileSync(`${file}.tmp`, fromHex(encodeDump(service.dumpState())));
    renameSync(`${file}.tmp`, file);
    ctx.log.info({ file }, `dumped the state to ${file}`);
  },
  init(ctx): DevControls {
    const producer = ctx.plugins.find((entry) => (entry.definition.provides ?? []).includes(BLOCK_PRODUCER));
    const chain = ctx.use('chain-reader');
    const submitter = ctx.use('tx-submitter');
    const validator = withNativeSigner(devnetKey('validator', 0));
    const rewinder = ctx.use('chain-rewind');
    const p2p = ctx.use('p2p');
    const snapshots: Snapshot[] = [];
    let nextSnapshot = 0;
    // Anvil's: a new one at each start and reset, so a tool can tell that the chain it knew is gone.
    const newInstanceId = (): string => toHex(randomBytes(32));
    let instanceId = newInstanceId();
    const devMiner = (): DevMiner | undefined => (producer?.service() as ValidatorRole | undefined)?.devMiner;
    const controls: DevControls = {
      miner() {
        const miner = devMiner();
        if (!miner)
          throw domainError(
            'dev_mode_off',
            'this node is not in dev mode: start a devnet validator with `svc-node start --dev` (or `npm run dev`) for mining on demand, the clock and state edits',
          );
        return miner;
      },
      edit(edit) {
        return controls.editAll([{ ...edit, address: edit.address.toLowerCase() }]);
      },
      async editAll(edits) {
        await controls.submitDev(DEV_SET_KIND, edits);
      },
      async submitDev(kind, payloads) {
        const miner = controls.miner();
        const sent: string[] = [];
        for (const payload of payloads) {
          const tx = signTransaction(
            {
              chainId: chain.head.chainId,
              kind,
              nonce: submitter.nextNonce(validator.address),
              payload: payload as Payload,
            },
            validator,
          );
          await submitter.submit(tx);
          sent.push(tx.hash);
        }
        // Each block takes what fits of them: mine until the last is in.
        for (const hash of sent) await miner.mineIncluding(hash);
        for (const hash of sent) {
          const receipt = await chain.getReceipt(hash);
          if (receipt?.status !== 'success')
            throw new Error(
              `the ${kind} transaction ${hash} was not applied: ${receipt ? `${receipt.error?.name}: ${receipt.error?.reason}` : 'not in a block'}`,
            );
        }
        return sent;
      },
      dropPending: (hash) => evm.rules.chain.dropPending(hash),
      nodeInfo() {
        controls.miner();
        const head = chain.head;
        const { chainId, blockGasLimit, baseFee } = evm.rules.params;
        return {
          currentBlockNumber: `0x${head.height.toString(16)}`,
          currentBlockTimestamp: Math.floor(head.timestamp / 1000),
          currentBlockHash: head.hash,
          hardFork: 'Osaka',
          transactionOrder: 'fifo',
          environment: {
            baseFee: `0x${baseFee.toString(16)}`,
            chainId,
            gasLimit: `0x${blockGasLimit.toString(16)}`,
            gasPrice: `0x${baseFee.toString(16)}`,
          },
          forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
        };
      },
      metadata() {
        controls.miner();
        const head = chain.head;
        return {
          clientVersion: `anvil/svc-node-v${VERSION}/node-${process.version}`,
          clientSemver: VERSION,
          chainId: evm.rules.params.chainId,
          instanceId,
          latestBlockNumber: head.height,
          latestBlockHash: head.hash,
          forkedNetwork: null,
          snapshots: Object.fromEntries(snapshots.map((s) => [`0x${s.id.toString(16)}`, [s.height, s.hash]])),
        };
      },
      setLogging(on) {
        controls.miner();
        evm.setConsoleLogging(on);
      },
      dumpState() {
        controls.miner();
        const { height, timestamp, proposer, parentHash } = chain.head;
        const { blockGasLimit, baseFee } = evm.rules.params;
        return dumpState(chain.state, {
          height,
          timestamp,
          proposer: proposer as Address,
          parentHash,
          gasLimit: Number(blockGasLimit),
          baseFee,
        });
      },
      async loadState(dump) {
        const edits = editsFor(dump, chain.state, hexOfAddress(validator.address));
        await controls.editAll(edits);
        return edits.length;
      },
      snapshot() {
        const clock = controls.miner().clock;
        const id = nextSnapshot++;
        snapshots.push({ id, height: chain.head.height, hash: chain.head.hash, clock });
        return `0x${id.toString(16)}`;
      },
      async revert(id) {
        const miner = controls.miner();
        const wanted = Number.parseInt(id.slice(2), 16);
        const at = snapshots.findIndex((snapshot) => snapshot.id === wanted);
        if (at < 0) return false;
        refuseWithPeers('evm_revert');
        const snapshot = snapshots[at]!;
        await miner.revert(() => rewinder.rewind(snapshot.height), snapshot.clock);
        snapshots.splice(at);
        // Their nonces went back with the blocks.
        lastNonce.clear();
        return true;
      },
      async reset() {
        const miner = controls.miner();
        refuseWithPeers('anvil_reset');
        await miner.revert(() => rewinder.rewind(genesisHeightOf(chain.genesis)), {
          offsetMs: 0,
          nextTimestamp: undefined,
        });
        snapshots.splice(0);
        instanceId = newInstanceId();
        controls.impersonated.clear();
        controls.autoImpersonate = false;
        lastNonce.clear();
      },
      impersonated: new Set<string>(),
      autoImpersonate: false,
      accounts: () => (devMiner() ? unlocked.addresses.map((address) => toEthAddress(address, true)) : []),
      signer(address) {
        controls.miner();
        if (!unlocked.has(address)) throw new EthRpcError(-32000, `unknown account ${address}`);
        return unlocked.signer(address);
      },
      async sendAs(call) {
        const miner = devMiner();
        if (!miner) throw new EthRpcError(-32000, NOT_SERVED);
        const from = call.from?.toLowerCase();
        if (!from) throw new EthRpcError(-32602, 'eth_sendTransaction: "from" is required');
        refuseBlobs(call);
        if (unlocked.has(from) && !controls.impersonated.has(from)) {
          const hash = await unlocked.send(evm, { ...(call as EthCallObject), from });
          if (miner.automining) await miner.mineIncluding(hash);
          return hash;
        }
        if (!controls.autoImpersonate && !controls.impersonated.has(from))
          throw new EthRpcError(
            -32000,
            `eth_sendTransaction: ${from} is not impersonated; call anvil_impersonateAccount first, or sign the transaction and send it with eth_sendRawTransaction`,
          );
        const sender = addressOfHex(from);
        const stateNonce = decodeAccount(chain.state.get(accountKey(sender))).nonce;
        const last = lastNonce.get(from);
        const nonce =
          call.nonce !== undefined
            ? BigInt(call.nonce)
            : last !== undefined && last >= stateNonce
              ? last + 1n
              : stateNonce;
        const gasLimit =
          call.gas !== undefined
            ? Number(BigInt(call.gas))
            : Number(BigInt(await evm.eth.estimateGas({ ...call, nonce: undefined } as never, 'latest')));
        const feeCap = call.maxFeePerGas ?? call.gasPrice;
        const base = {
          from,
          to: call.to ? call.to.toLowerCase() : null,
          data: call.data ?? call.input ?? '0x',
          value: BigInt(call.value ?? '0x0').toString(),
          gasLimit,
          nonce: nonceField(nonce),
        };
        // From rules version 7 the send keeps its type, gas price and access list (as Anvil's).
        const typed = chain.rulesVersionAt(chain.head.height + 1) >= IMPERSONATED_TYPES_SINCE;
        const type = ethereumTypeOf(call);
        const payload: DevImpersonated = typed
          ? {
              ...base,
              type,
              ...(type !== 2 && call.gasPrice !== undefined ? { gasPrice: BigInt(call.gasPrice).toString() } : {}),
              ...(type === 2 && feeCap !== undefined ? { maxFeePerGas: BigInt(feeCap).toString() } : {}),
              ...(type === 2 && call.maxPriorityFeePerGas !== undefined
                ? { maxPriorityFeePerGas: BigInt(call.maxPriorityFeePerGas).toString() }
                : {}),
              ...(type !== 0 && call.accessList
                ? {
                    accessList: call.accessList.map((entry) => ({
                      address: entry.address.toLowerCase(),
                      storageKeys: entry.storageKeys.map((key) => key.toLowerCase()),
                    })),
                  }
                : {}),
            }
          : {
              ...base,
              ...(feeCap !== undefined ? { maxFeePerGas: BigInt(feeCap).toString() } : {}),
              ...(call.maxPriorityFeePerGas !== undefined
                ? { maxPriorityFeePerGas: BigInt(call.maxPriorityFeePerGas).toString() }
                : {}),
            };
        const tx = signTransaction(
          {
            chainId: chain.head.chainId,
            kind: DEV_IMPERSONATED_KIND,
            nonce: submitter.nextNonce(validator.address),
            payload: payload as unknown as Payload,
          },
          validator,
        );
        await submitter.submit(tx);
        lastNonce.set(from, nonce);
        if (miner.automining) await miner.mineIncluding(tx.hash);
        return tx.hash;
      },
    };
    /** A peer holds the blocks a rewind would undo: the chain would fork under it. */
    const refuseWithPeers = (what: string): void => {
      const peers = p2p.peerList();
      if (peers.length > 0)
        throw domainError(
          'peers_connected',
          `${what}: ${peers.length} peer(s) connected (${peers.map((peer) => peer.peerId).join(', ')}) hold the blocks it would undo; stop them first (a follower then syncs again from a new data dir)`,
          { peers: peers.length },
        );
    };
    const evm = ctx.use('evm');
    const lastNonce = new Map<string, bigint>();
    const unlocked = new UnlockedAccounts();
    return controls;
  },
  rpc: (method) =>
    withHardhatNames([
      method({
        name: 'evm_mine',
        summary: 'Mines one block now with what is pending (a timestamp in seconds, when given, is its time).',
        params: [optionalParam('timestamp', Count)],
        result: Type.Literal('0x0'),
        errors: ['dev_mode_off', 'invalid_params'],
        handler: async ([timestamp], { service }) => {
          const miner = service.miner();
          if (timestamp !== undefined) miner.setNextBlockTimestamp(toNumber(timestamp));
          await miner.mine(1);
          return '0x0' as const;
        },
      }),
      method({
        name: 'anvil_mine',
        summary: 'Mines `count` blocks now (default 1), each `interval` seconds after the one before (default 1).',
        params: [optionalParam('count', Count), optionalParam('interval', Count)],
        result: Null,
        errors: ['dev_mode_off', 'invalid_params'],
        handler: async ([count, interval], { service }) => {
          const blocks = count === undefined ? 1 : toNumber(count);
          if (blocks < 1 || blocks > MAX_MINE)
            throw domainError('invalid_params', `anvil_mine: count must be 1 to ${MAX_MINE}, got ${blocks}`, {
              field: 'count',
            });
          await service.miner().mine(blocks, interval === undefined ? 1 : toNumber(interval));
          return null;
        },
      }),
      method({
        name: 'evm_setAutomine',
        summary: 'Turns automine (a block as soon as transactions wait) on or off.',
        params: [param('enabled', Type.Boolean())],
        result: Null,
        errors: ['dev_mode_off'],
        handler: ([enabled], { service }) => {
          service.miner().setAutomine(enabled);
          return null;
        },
      }),
      method({
        name: 'anvil_getAutomine',
        summary: 'Whether automine is on.',
        params: [],
        result: Type.Boolean(),
        errors: ['dev_mode_off'],
        handler: (_params, { service }) => service.miner().automining,
      }),
      method({
        name: 'evm_setIntervalMining',
        summary: 'Mines an empty block every `interval` seconds when idle (Anvil counts seconds); 0 turns it off.',
        params: [param('interval', Count)],
        result: Null,
        errors: ['dev_mode_off'],
        handler: ([interval], { service }) => {
          service.miner().setInterval(toNumber(interval) * 1000);
          return null;
        },
      }),
      method({
        name: 'evm_increaseTime',
        summary:
          'Moves the clock of the blocks to come forward by `seconds`; answers the whole offset in seconds, a number (as Anvil).',
        params: [param('seconds', Count)],
        result: Type.Integer({ minimum: 0 }),
        errors: ['dev_mode_off', 'invalid_params'],
        handler: ([seconds], { service }) => service.miner().increaseTime(toNumber(seconds)),
      }),
      method({
        name: 'evm_setNextBlockTimestamp',
        summary: "The next block's time, in seconds: after the head's (a chain's time never goes back).",
        params: [param('timestamp', Count)],
        result: Null,
        errors: ['dev_mode_off', 'invalid_params'],
        handler: ([timestamp], { service }) => {
          service.miner().setNextBlockTimestamp(toNumber(timestamp));
          return null;
        },
      }),
      method({
        name: 'evm_snapshot',
        summary: "Keeps the chain's head and block clock; answers the snapshot's id for evm_revert.",
        params: [],
        result: Type.String({ pattern: '^0x[0-9a-f]+$' }),
        errors: ['dev_mode_off'],
        handler: (_params, { service }) => service.snapshot(),
      }),
      method({
        name: 'evm_revert',
        summary:
          'Takes the chain back to a snapshot: later blocks, their state, receipts and indexes go, pending transactions are dropped, the clock is put back; that snapshot and later ones are used up. False for an unknown id; refused while a peer is connected.',
        params: [
          param('id', Type.String({ pattern: '^0x[0-9a-fA-F]{1,16}$', description: 'an id evm_snapshot answered' })),
        ],
        result: Type.Boolean(),
        errors: ['dev_mode_off', 'peers_connected', 'pruned'],
        handler: ([id], { service }) => service.revert(id),
      }),
      method({
        name: 'anvil_setBalance',
        summary: "Sets an account's OMC (wei), by a dev-mode transaction in a block of its own.",
        params: [param('address', EthAddressSchema), param('balance', QuantitySchema)],
        result: Null,
        errors: ['dev_mode_off'],
        handler: async ([address, balance], { service }) => {
          await service.edit({ address, balance: BigInt(balance).toString() });
          return null;
        },
      }),
      method({
        name: 'svc_devSetBalance',
        summary:
          "Sets an account's OMC and OGT (base units, decimal), by a dev-mode transaction in a block of its own: Anvil's setBalance for both of the chain's assets.",
        params: [
          param('address', AddressSchema),
          param(
            'balances',
            Type.Object(
              { omc: Type.Optional(Units), ogt: Type.Optional(Units) },
              { additionalProperties: false, minProperties: 1 },
            ),
          ),
        ],
        result: Null,
        errors: ['dev_mode_off', 'invalid_address', 'invalid_params'],
        handler: async ([address, { omc, ogt }], { service }) => {
          await service.edit({
            address: hexOfAddress(normalizeAddress(address)),
            ...(omc !== undefined ? { balance: omc } : {}),
            ...(ogt !== undefined ? { ogt } : {}),
          });
          return null;
        },
      }),
      method({
        name: 'anvil_setNonce',
        summary: "Sets an account's nonce, by a dev-mode transaction in a block of its own.",
        params: [param('address', EthAddressSchema), param('nonce', Nonce)],
        result: Null,
        errors: ['dev_mode_off'],
        handler: async ([address, nonce], { service }) => {
          await service.edit({ address, nonce: nonceField(BigInt(nonce)) });
          return null;
        },
      }),
      method({
        name: 'anvil_setCode',
        summary: "Sets an account's code (0x removes it), by a dev-mode transaction in a block of its own.",
        params: [param('address', EthAddressSchema), param('code', DataSchema)],
        result: Null,
        errors: ['dev_mode_off', 'invalid_transaction'],
        handler: async ([address, code], { service }) => {
          await service.edit({ address, code });
          return null;
        },
      }),
      method({
        name: 'anvil_setStorageAt',
        summary:
          'Sets one storage slot of an account (32-byte value), by a dev-mode transaction in a block of its own.',
        params: [param('address', EthAddressSchema), param('slot', QuantitySchema), param('value', QuantitySchema)],
        result: Type.Boolean(),
        errors: ['dev_mode_off'],
        handler: async ([address, slot, value], { service }) => {
          await service.edit({ address, storage: [{ slot: word32(slot), value: word32(value) }] });
          return true;
        },
      }),
      method({
        name: 'anvil_impersonateAccount',
        summary: '`eth_sendTransaction` may send from this account, unsigned (dev mode).',
        params: [param('address', EthAddressSchema)],
        result: Null,
        errors: ['dev_mode_off'],
        handler: ([address], { service }) => {
          service.miner();
          service.impersonated.add(address.toLowerCase());
          return null;
        },
      }),
      method({
        name: 'anvil_stopImpersonatingAccount',
        summary: 'Ends the impersonation of an account.',
        params: [param('address', EthAddressSchema)],
        result: Null,
        errors: ['dev_mode_off'],
        handler: ([address], { service }) => {
          service.miner();
          service.impersonated.delete(address.toLowerCase());
          return null;
        },
      }),
      method({
        name: 'anvil_autoImpersonateAccount',
        summary: '`eth_sendTransaction` may send from any account, unsigned (dev mode), while on.',
        params: [param('enabled', Type.Boolean())],
        result: Null,
        errors: ['dev_mode_off'],
        handler: ([enabled], { service }) => {
          service.miner();
          service.autoImpersonate = enabled;
          return null;
        },
      }),
      method({
        name: 'eth_accounts',
        summary:
          "Accounts this node signs for: in dev mode the ten test-mnemonic accounts (Anvil's and Hardhat's), unlocked; elsewhere none (it holds no user keys).",
        params: [],
        result: Type.Array(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' })),
        handler: (_params, { service }) => service.accounts(),
      }),
      method({
        name: 'eth_sendTransaction',
        summary:
          'In dev mode, sends a transaction from an unlocked test-mnemonic account (signed with its key) or an impersonated one (mined at once under automine); elsewhere refused: the node holds no user keys.',
        params: [param('transaction', CallObject)],
        result: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
        handler: ([call], { service }) => service.sendAs(call),
      }),
      ...signingMethods(method),
      ...jobAndDealMethods(method),
      ...paramMethods(method),
      ...nodeMethods(method),
      method({
        name: 'anvil_dropTransaction',
        summary: 'Takes a pending transaction out of the mempool: its hash, or null when it was not pending.',
        params: [param('hash', Hash32Schema)],
        result: Type.Union([Type.String(), Type.Null()]),
        errors: ['dev_mode_off'],
        handler: ([hash], { service }) => {
          service.miner();
          return service.dropPending(hash.toLowerCase()) ? hash.toLowerCase() : null;
        },
      }),
      method({
        name: 'hardhat_dropTransaction',
        summary: "Hardhat's anvil_dropTransaction: true when the transaction was pending and is dropped.",
        params: [param('hash', Hash32Schema)],
        result: Type.Boolean(),
        errors: ['dev_mode_off'],
        handler: ([hash], { service }) => {
          service.miner();
          return service.dropPending(hash.toLowerCase());
        },
      }),
      method({
        name: 'anvil_reset',
        summary:
          'Takes the chain back to its genesis block: later blocks, their state and receipts go, the clock, snapshots and impersonations are as at start. Forking is not served: a `forking` parameter is refused.',
        params: [
          optionalParam(
            'options',
            Type.Object(
              {},
              { additionalProperties: true, description: "Anvil's { forking }: refused when it names a fork" },
            ),
          ),
        ],
        result: Null,
        errors: ['dev_mode_off', 'peers_connected', 'invalid_params'],
        handler: async ([options], { service }) => {
          if (options && (options as { forking?: unknown }).forking !== undefined)
            throw domainError(
              'invalid_params',
              'anvil_reset: forking is not served by svc-node; reset without options',
              {
                field: 'forking',
              },
            );
          await service.reset();
          return null;
        },
      }),
      method({
        name: 'anvil_nodeInfo',
        summary: "The head, the fork and the environment, in Anvil's shape.",
        params: [],
        result: Type.Object({}, { additionalProperties: true }),
        errors: ['dev_mode_off'],
        handler: (_params, { service }) => service.nodeInfo(),
      }),
      method({
        name: 'anvil_dumpState',
        summary:
          "The head's accounts (OMC, OGT, nonce) and contracts (code, storage) as Anvil dumps them: gzipped JSON, hex. Jobs, deals and stakes are not in it.",
        params: [],
        result: Type.String({ pattern: '^0x([0-9a-f]{2})*$' }),
        errors: ['dev_mode_off'],
        handler: (_params, { service }) => encodeDump(service.dumpState()),
      }),
      method({
        name: 'anvil_loadState',
        summary:
          "Loads a dump (anvil_dumpState's, from svc-node or Anvil; gzipped or plain JSON, hex): its accounts and storage slots overwrite the node's, in state edits mined at once; the rest stays.",
        params: [param('state', DataSchema)],
        result: Type.Boolean(),
        errors: ['dev_mode_off', 'invalid_params'],
        handler: async ([hex], { service }) => {
          let dump: StateDump;
          try {
            dump = decodeDump(fromHex(hex));
          } catch (error) {
            throw domainError('invalid_params', `anvil_loadState: ${(error as Error).message}`, { field: 'state' });
          }
          await service.loadState(dump);
          return true;
        },
      }),
    ]),
});

/** Anvil's methods Hardhat's network offers too, under Hardhat's names (the same handler). */
const HARDHAT_NAMES = [
  'anvil_reset',
  'anvil_mine',
  'anvil_setBalance',
  'anvil_setCode',
  'anvil_setNonce',
  'anvil_setStorageAt',
  'anvil_impersonateAccount',
  'anvil_stopImpersonatingAccount',
  'anvil_getAutomine',
  'anvil_setCoinbase',
  'anvil_setNextBlockBaseFeePerGas',
  'anvil_metadata',
  'anvil_setLoggingEnabled',
  'anvil_setMinGasPrice',
];

function withHardhatNames(methods: RpcMethod[]): RpcMethod[] {
  const aliases = methods
    .filter((m) => HARDHAT_NAMES.includes(m.name))
    .map((m) => ({
      ...m,
      name: m.name.replace(/^anvil_/, 'hardhat_'),
      summary: `Hardhat's name of ${m.name}: ${m.summary}`,
    }));
  return [...methods, ...aliases];
}
