import { readFileSync } from 'node:fs';
import { isValidAddress, normalizeAddress, type Address } from '../sdk/address.js';
import { parseAmount, UNIT } from '../sdk/amount.js';
import { isHex, toHex, type Hex } from '../sdk/bytes.js';
import { headerHash, type BlockHeader } from '../sdk/block.js';
import { ZERO_HASH } from '../sdk/hash.js';
import { devnetKey } from '../sdk/keys.js';
import { ConfigError } from '../kernel/config/errors.js';
import { accountKey, encodeAccount } from './state/accounts.js';
import { StateCommitment } from './state/state-root.js';
import type { StateChanges } from './state/world-state.js';
import type { AnyPlugin } from '../kernel/plugin.js';
import './contract.js';

export interface GenesisAccount {
  readonly address: Address;
  readonly omc: bigint;
  readonly ogt: bigint;
}

/** What a network starts from; every node of the network computes the same genesis hash from it. */
export interface GenesisSpec {
  readonly network: string;
  readonly chainId: string;
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
}

const ZERO: Hex = toHex(ZERO_HASH);

/** Prefunded devnet accounts: dev keys 0..9 from the published seed, each with 1,000,000 OMC and 10,000 OGT. */
export const DEVNET_ACCOUNTS = 10;
export const DEVNET_ACCOUNT_OMC = 1_000_000n * UNIT;
export const DEVNET_ACCOUNT_OGT = 10_000n * UNIT;

/** The devnet's own part of its genesis (chain id, validator, dev accounts); plugins add their entries (node/genesis.ts). */
export function devnetBaseGenesis(): GenesisSpec {
  const validator = devnetKey('validator', 0);
  return {
    network: 'devnet',
    chainId: 'svc-devnet-1',
    timestamp: Date.UTC(2026, 0, 1),
    validatorKey: toHex(validator.publicKey),
    validator: validator.address,
    accounts: Array.from({ length: DEVNET_ACCOUNTS }, (_, i) => ({ address: devnetKey('account', i).address, omc: DEVNET_ACCOUNT_OMC, ogt: DEVNET_ACCOUNT_OGT })),
    params: {},
    entries: new Map(),
  };
}

/**
 * A genesis file: `{ "chainId", "timestamp" (unix ms), "validatorKey" (0x hex public key), "validator"
 * (its svc1 address), "accounts": [{ "address", "omc", "ogt" }], ... }`, amounts as decimal token
 * strings; other keys are parameters for the plugins' genesis hooks (e.g. `"unbondingBlocks"`).
 */
export function readGenesisFile(path: string, network: string): GenesisSpec {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`--genesis: cannot read ${path}: ${(error as Error).message}`);
  }
  const { chainId, timestamp, validatorKey, validator, accounts = [], ...params } = raw;
  const bad = (what: string): never => {
    throw new ConfigError(`--genesis: ${path}: ${what}`);
  };
  if (typeof chainId !== 'string' || !/^[a-z0-9-]{1,64}$/.test(chainId)) bad('"chainId" must be 1-64 of [a-z0-9-]');
  if (!Number.isSafeInteger(timestamp) || (timestamp as number) < 0) bad('"timestamp" must be unix milliseconds');
  if (!isHex(validatorKey, 32)) bad('"validatorKey" must be a 32-byte 0x hex public key');
  if (!isValidAddress(validator)) bad('"validator" must be an svc1 address');
  if (!Array.isArray(accounts)) bad('"accounts" must be an array');
  const parsed = (accounts as { address?: unknown; omc?: unknown; ogt?: unknown }[]).map((a, i) => {
    if (!isValidAddress(a.address)) bad(`accounts[${i}].address must be an svc1 address`);
    try {
      return { address: normalizeAddress(a.address as string), omc: parseAmount(String(a.omc ?? '0')), ogt: parseAmount(String(a.ogt ?? '0')) };
    } catch (error) {
      return bad(`accounts[${i}]: ${(error as Error).message}`);
    }
  });
  return {
    network,
    chainId: chainId as string,
    timestamp: timestamp as number,
    validatorKey: (validatorKey as string).toLowerCase() as Hex,
    validator: normalizeAddress(validator as string),
    accounts: parsed,
    params,
    entries: new Map(),
  };
}

/** The world state of block 0. */
export function genesisState(spec: GenesisSpec): StateChanges {
  const changes = new Map<string, Uint8Array>();
  for (const account of spec.accounts) changes.set(accountKey(account.address), encodeAccount({ omc: account.omc, ogt: account.ogt, nonce: 0, bonded: {} }));
  for (const [key, value] of spec.entries) changes.set(key, value);
  return changes;
}

export function genesisStateRoot(spec: GenesisSpec): Hex {
  const commitment = new StateCommitment();
  for (const [key, value] of genesisState(spec)) commitment.set(key, value);
  return toHex(commitment.root());
}

/** Block 0's header: no parent, no transactions; unsigned, identified by its hash. */
export function genesisHeader(spec: GenesisSpec): BlockHeader {
  return {
    chainId: spec.chainId,
    height: 0,
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

export class GenesisError extends Error {
  override name = 'GenesisError';
}

/**
 * The genesis with every plugin's `genesis` entries: keys under the plugin's own `<name>/` prefix or
 * under `params/` (consensus parameters). A parameter several plugins share must come out the same
 * from each; anything else twice is an error naming both plugins.
 */
export function withPluginGenesis(spec: GenesisSpec, plugins: readonly AnyPlugin[]): GenesisSpec {
  const entries = new Map(spec.entries);
  const owners = new Map<string, string>();
  for (const plugin of plugins) {
    for (const [key, value] of plugin.genesis?.({ network: spec.network, params: spec.params }) ?? []) {
      if (!key.startsWith(`${plugin.name}/`) && !key.startsWith('params/')) throw new GenesisError(`plugin "${plugin.name}": genesis key "${key}" must start with "${plugin.name}/" or "params/"`);
      const existing = entries.get(key);
      if (existing && !(key.startsWith('params/') && Buffer.from(existing).equals(Buffer.from(value)))) {
        throw new GenesisError(`genesis key "${key}" of plugin "${plugin.name}" is already set by plugin "${owners.get(key) ?? 'the genesis'}"`);
      }
      entries.set(key, value);
      owners.set(key, plugin.name);
    }
  }
  return { ...spec, entries };
}
