import { readFileSync } from 'node:fs';
import { isValidAddress, normalizeAddress, type Address, addressOfHex } from '../sdk/address.js';
import { parseAmount, UNIT } from '../sdk/amount.js';
import { isHex, toHex, type Hex } from '../sdk/bytes.js';
import { headerHash, type BlockHeader } from '../sdk/block.js';
import { ZERO_HASH } from '../sdk/hash.js';
import { DEVNET_ACCOUNTS, devnetKey } from '../sdk/keys.js';
import { ConfigError } from '../kernel/config/errors.js';
import { accountKey, encodeAccount } from './state/accounts.js';
import { StateCommitment } from './state/state-root.js';
import type { StateChanges } from './state/world-state.js';
import type { AnyPlugin } from '../kernel/plugin.js';
import './contract.js';
import { decode, encode } from '../sdk/encoding.js';
import { NEWEST_RULES_VERSION, RULES_VERSION_KEY } from './rules-version.js';
import type { EnvelopeContext } from './ethereum-envelope.js';

export interface GenesisAccount {
  readonly address: Address;
  readonly omc: bigint;
  readonly ogt: bigint;
  /** OGT bonded per purpose in block 0 (a genesis validator's `stake`), besides `ogt`. */
  readonly bonded?: Readonly<Record<string, bigint>>;
}

/** What a network starts from; every node of the network computes the same genesis hash from it. */
export interface GenesisSpec {
  readonly network: string;
  readonly chainId: string;
  /** The chain-rules version the network runs (chain/rules-version.ts); part of block 0's state. */
  readonly rulesVersion: number;
  /** Unix milliseconds of block 0. */
  readonly timestamp: number;
  /** The public key of the authority that proposes blocks. */
  readonly validatorKey: Hex;
  readonly validator: Address;
  readonly accounts: readonly GenesisAccount[];
  /** The genesis file's other keys, for the plugins' genesis hooks (the devnet has none). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The state the plugins put in block 0 (their `genesis` hooks), besides the accounts. */
  readonly entries: ReadonlyMap<string, Uint8Array>;
  /**
   * The height of the genesis block (0 unless said): a network made from another's exported state
   * starts where the export was taken, so every height its state holds (deadlines, unbonding, deal
   * terms, the validator set's epoch) keeps its meaning, as CometBFT's `initial_height` does.
   */
  readonly initialHeight?: number;
  /**
   * The whole state of the genesis block, when the genesis carries one (`svc-node export-state`):
   * then it is all of it — no accounts beside it, no plugin genesis hooks run.
   */
  readonly state?: ReadonlyMap<string, Uint8Array>;
}

/** The height of a network's first block. */
export const genesisHeightOf = (spec: GenesisSpec): number => spec.initialHeight ?? 0;

const ZERO: Hex = toHex(ZERO_HASH);

/** Prefunded devnet accounts (`DEVNET_ACCOUNTS` of them): dev keys from the published seed, each with 1,000,000 OMC and 10,000 OGT. */
export const DEVNET_ACCOUNT_OMC = 1_000_000n * UNIT;
export const DEVNET_ACCOUNT_OGT = 10_000n * UNIT;

/**
 * The ten accounts of Ethereum tooling's well-known test mnemonic (`test test test test test test
 * test test test test test junk`, m/44'/60'/0'/0/i): Foundry's and Hardhat's default keys, so they
 * deploy and call contracts on the devnet with no setup. Public keys: never hold value with them.
 */
export const TEST_MNEMONIC_ACCOUNTS: readonly Address[] = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
  '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
  '0x976ea74026e726554db657fa54763abd0c3a0aa9',
  '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
  '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
  '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
].map(addressOfHex);
/** What each test-mnemonic account holds in the devnet's block 0 (OGT enough to stake a validator). */
export const TEST_ACCOUNT_OMC = 10_000n * UNIT;
export const TEST_ACCOUNT_OGT = 100n * UNIT;

/** The devnet's own part of its genesis (chain id, validator, dev accounts, test-mnemonic accounts); plugins add their entries (node/genesis.ts). */
export function devnetBaseGenesis(): GenesisSpec {
  const validator = devnetKey('validator', 0);
  return {
    network: 'devnet',
    chainId: 'svc-devnet-1',
    rulesVersion: NEWEST_RULES_VERSION,
    timestamp: Date.UTC(2026, 0, 1),
    validatorKey: toHex(validator.publicKey),
    validator: validator.address,
    accounts: [
      ...Array.from({ length: DEVNET_ACCOUNTS }, (_, i) => ({
        address: devnetKey('account', i).address,
        omc: DEVNET_ACCOUNT_OMC,
        ogt: DEVNET_ACCOUNT_OGT,
      })),
      ...TEST_MNEMONIC_ACCOUNTS.map((address) => ({ address, omc: TEST_ACCOUNT_OMC, ogt: TEST_ACCOUNT_OGT })),
    ],
    params: {},
    entries: new Map(),
  };
}

/**
 * A genesis file: `{ "chainId", "rulesVersion" (default: this node's), "timestamp" (unix ms), "validatorKey" (0x hex public key), "validator"
 * (its svc1 address), "accounts": [{ "address", "omc", "ogt", "bonded"?: { purpose: amount } }], ... }`,
 * amounts as decimal token strings; other keys are parameters for the plugins' genesis hooks (e.g.
 * `"unbondingBlocks"`, `"validators"`). An exported state (`svc-node export-state`) has instead
 * `"initialHeight"` (the genesis block's height), `"state"` (every key of the genesis state and its
 * value as 0x hex) and `"exportedFrom"` (where it was taken: not read).
 */
export function readGenesisFile(path: string, network: string): GenesisSpec {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`--genesis: cannot read ${path}: ${(error as Error).message}`);
  }
  return parseGenesis(raw, network, path);
}

/** A genesis file's content as read (see `readGenesisFile`); `path` names it in errors. */
export function parseGenesis(raw: Record<string, unknown>, network: string, path: string): GenesisSpec {
  const {
    chainId,
    rulesVersion = NEWEST_RULES_VERSION,
    timestamp,
    validatorKey,
    validator,
    accounts = [],
    initialHeight = 0,
    state,
    exportedFrom: _exportedFrom,
    ...params
  } = raw;
  const bad = (what: string): never => {
    throw new ConfigError(`--genesis: ${path}: ${what}`);
  };
  if (typeof chainId !== 'string' || !/^[a-z0-9-]{1,64}$/.test(chainId)) bad('"chainId" must be 1-64 of [a-z0-9-]');
  if (!Number.isSafeInteger(rulesVersion) || (rulesVersion as number) < 1)
    bad('"rulesVersion" must be a positive integer (the chain-rules version the network runs)');
  if (!Number.isSafeInteger(timestamp) || (timestamp as number) < 0) bad('"timestamp" must be unix milliseconds');
  if (!isHex(validatorKey, 32)) bad('"validatorKey" must be a 32-byte 0x hex public key');
  if (!isValidAddress(validator)) bad('"validator" must be an svc1 address');
  if (!Array.isArray(accounts)) bad('"accounts" must be an array');
  if (!Number.isSafeInteger(initialHeight) || (initialHeight as number) < 0)
    bad('"initialHeight" must be a whole number (the genesis block\'s height)');
  let whole: Map<string, Uint8Array> | undefined;
  if (state !== undefined) {
    if (typeof state !== 'object' || state === null || Array.isArray(state))
      bad('"state" must be an object of state key: 0x hex value');
    if ((accounts as unknown[]).length > 0 || Object.keys(params).length > 0)
      bad(
        `with "state" (an exported state), nothing else makes the genesis state: drop ${(accounts as unknown[]).length > 0 ? '"accounts"' : `"${Object.keys(params)[0]}"`}`,
      );
    whole = new Map();
    for (const [key, value] of Object.entries(state as Record<string, unknown>)) {
      if (typeof value !== 'string' || !/^0x(?:[0-9a-f]{2})*$/.test(value))
        bad(`"state"["${key}"] must be 0x and lowercase hex bytes`);
      whole.set(key, Buffer.from((value as string).slice(2), 'hex'));
    }
  }
  const parsed = (accounts as { address?: unknown; omc?: unknown; ogt?: unknown; bonded?: unknown }[]).map(
    (a, i): GenesisAccount => {
      if (!isValidAddress(a.address)) bad(`accounts[${i}].address must be an svc1 address`);
      if (a.bonded !== undefined && (typeof a.bonded !== 'object' || a.bonded === null || Array.isArray(a.bonded)))
        bad(`accounts[${i}].bonded must be an object of purpose: OGT amount`);
      try {
        const bonded = Object.entries((a.bonded ?? {}) as Record<string, unknown>).map(
          ([purpose, amount]) => [purpose, parseAmount(String(amount))] as const,
        );
        return {
          address: normalizeAddress(a.address as string),
          omc: parseAmount(String(a.omc ?? '0')),
          ogt: parseAmount(String(a.ogt ?? '0')),
          ...(bonded.length > 0 ? { bonded: Object.fromEntries(bonded) } : {}),
        };
      } catch (error) {
        return bad(`accounts[${i}]: ${(error as Error).message}`);
      }
    },
  );
  return {
    network,
    chainId: chainId as string,
    rulesVersion: rulesVersion as number,
    timestamp: timestamp as number,
    validatorKey: (validatorKey as string).toLowerCase() as Hex,
    validator: normalizeAddress(validator as string),
    accounts: parsed,
    params,
    entries: new Map(),
    ...(initialHeight !== 0 ? { initialHeight: initialHeight as number } : {}),
    ...(whole ? { state: whole } : {}),
  };
}

/** The world state of the genesis block. */
export function genesisState(spec: GenesisSpec): StateChanges {
  const changes = new Map<string, Uint8Array>();
  if (spec.state) {
    for (const [key, value] of spec.state) changes.set(key, value);
    changes.set(RULES_VERSION_KEY, encode(spec.rulesVersion));
    return changes;
  }
  changes.set(RULES_VERSION_KEY, encode(spec.rulesVersion));
  for (const account of spec.accounts)
    changes.set(
      accountKey(account.address),
      encodeAccount({ omc: account.omc, ogt: account.ogt, nonce: 0n, bonded: { ...account.bonded } }),
    );
  for (const [key, value] of spec.entries) changes.set(key, value);
  return changes;
}

export function genesisStateRoot(spec: GenesisSpec): Hex {
  const commitment = new StateCommitment();
  for (const [key, value] of genesisState(spec)) commitment.set(key, value);
  return toHex(commitment.root());
}

/** The genesis block's header: no parent, no transactions; unsigned, identified by its hash. */
export function genesisHeader(spec: GenesisSpec): BlockHeader {
  return {
    chainId: spec.chainId,
    height: genesisHeightOf(spec),
    parentHash: ZERO,
    timestamp: spec.timestamp,
    proposer: spec.validator,
    proposerKey: spec.validatorKey,
    txRoot: ZERO,
    stateRoot: genesisStateRoot(spec),
    receiptRoot: ZERO,
    lastCommit: null,
  };
}

export function genesisHash(spec: GenesisSpec): Hex {
  return headerHash(genesisHeader(spec));
}

/**
 * The network's EVM chain id, when a plugin's genesis sets one (`params/evmChainId`): Ethereum
 * transactions must be signed for it.
 */
export const EVM_CHAIN_ID_KEY = 'params/evmChainId';

/** What decoding transactions of either envelope needs of a genesis. */
export function envelopeContext(spec: GenesisSpec): EnvelopeContext {
  const raw = spec.state?.get(EVM_CHAIN_ID_KEY) ?? spec.entries.get(EVM_CHAIN_ID_KEY);
  return raw ? { chainId: spec.chainId, evmChainId: decode<number>(raw) } : { chainId: spec.chainId };
}

export class GenesisError extends Error {
  override name = 'GenesisError';
}

/**
 * The genesis with every plugin's `genesis` entries: keys under the plugin's own `<name>/` prefix or
 * under `params/` (consensus parameters). A parameter several plugins share must come out the same
 * from each; anything else twice is an error naming both plugins.
 */
export function withPluginGenesis(spec: GenesisSpec, plugins: readonly AnyPlugin[]): GenesisSpec {
  // An exported state is the whole genesis state already.
  if (spec.state) return spec;
  const entries = new Map(spec.entries);
  const owners = new Map<string, string>();
  for (const plugin of plugins) {
    for (const [key, value] of plugin.genesis?.({
      network: spec.network,
      params: spec.params,
      validator: spec.validator,
      validatorKey: spec.validatorKey,
      accounts: spec.accounts,
    }) ?? []) {
      if (!key.startsWith(`${plugin.name}/`) && !key.startsWith('params/'))
        throw new GenesisError(
          `plugin "${plugin.name}": genesis key "${key}" must start with "${plugin.name}/" or "params/"`,
        );
      const existing = entries.get(key);
      if (existing && !(key.startsWith('params/') && Buffer.from(existing).equals(Buffer.from(value)))) {
        throw new GenesisError(
          `genesis key "${key}" of plugin "${plugin.name}" is already set by plugin "${owners.get(key) ?? 'the genesis'}"`,
        );
      }
      entries.set(key, value);
      owners.set(key, plugin.name);
    }
  }
  return { ...spec, entries };
}
