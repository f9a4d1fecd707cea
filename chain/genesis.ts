import { readFileSync } from 'node:fs';
import { isValidAddress, normalizeAddress, type Address } from '../sdk/address.js';
import { parseAmount, UNIT } from '../sdk/amount.js';
import { isHex, toHex, type Hex } from '../sdk/bytes.js';
import { headerHash, type BlockHeader } from '../sdk/block.js';
import { ZERO_HASH } from '../sdk/hash.js';
import { devnetKey } from '../sdk/keys.js';
import { ConfigError } from '../kernel/config/errors.js';
import { encode } from '../sdk/encoding.js';
import { accountKey, encodeAccount } from './state/accounts.js';
import { StateCommitment } from './state/state-root.js';
import type { StateChanges } from './state/world-state.js';

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
  /** The account allowed to mint faucet grants (devnet only). */
  readonly faucet?: Address;
  /** Blocks a provider bond stays locked after unregistering (consensus: in the genesis state). */
  readonly unbondingBlocks: number;
}

/** Consensus parameters live in the state under `params/`, so the state root commits to them. */
export const UNBONDING_BLOCKS_KEY = 'params/unbondingBlocks';
/** Devnet: 20 blocks (a minute at 3 s blocks). Other networks default to about 3.5 days at 3 s. */
export const DEVNET_UNBONDING_BLOCKS = 20;
const DEFAULT_UNBONDING_BLOCKS = 100_800;

const ZERO: Hex = toHex(ZERO_HASH);

/** Prefunded devnet accounts: dev keys 0..9 from the published seed, each with 1,000,000 OMC and 10,000 OGT. */
export const DEVNET_ACCOUNTS = 10;
export const DEVNET_ACCOUNT_OMC = 1_000_000n * UNIT;
export const DEVNET_ACCOUNT_OGT = 10_000n * UNIT;

export function devnetGenesis(): GenesisSpec {
  const validator = devnetKey('validator', 0);
  return {
    network: 'devnet',
    chainId: 'svc-devnet-1',
    timestamp: Date.UTC(2026, 0, 1),
    validatorKey: toHex(validator.publicKey),
    validator: validator.address,
    accounts: Array.from({ length: DEVNET_ACCOUNTS }, (_, i) => ({ address: devnetKey('account', i).address, omc: DEVNET_ACCOUNT_OMC, ogt: DEVNET_ACCOUNT_OGT })),
    faucet: devnetKey('faucet', 0).address,
    unbondingBlocks: DEVNET_UNBONDING_BLOCKS,
  };
}

/**
 * A genesis file: `{ "chainId", "timestamp" (unix ms), "validatorKey" (0x hex public key), "validator"
 * (its svc1 address), "accounts": [{ "address", "omc", "ogt" }], "unbondingBlocks"? }`, amounts as
 * decimal token strings.
 */
export function readGenesisFile(path: string, network: string): GenesisSpec {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`--genesis: cannot read ${path}: ${(error as Error).message}`);
  }
  const { chainId, timestamp, validatorKey, validator, accounts = [], unbondingBlocks = DEFAULT_UNBONDING_BLOCKS } = raw;
  const bad = (what: string): never => {
    throw new ConfigError(`--genesis: ${path}: ${what}`);
  };
  if (typeof chainId !== 'string' || !/^[a-z0-9-]{1,64}$/.test(chainId)) bad('"chainId" must be 1-64 of [a-z0-9-]');
  if (!Number.isSafeInteger(timestamp) || (timestamp as number) < 0) bad('"timestamp" must be unix milliseconds');
  if (!isHex(validatorKey, 32)) bad('"validatorKey" must be a 32-byte 0x hex public key');
  if (!isValidAddress(validator)) bad('"validator" must be an svc1 address');
  if (!Array.isArray(accounts)) bad('"accounts" must be an array');
  if (!Number.isSafeInteger(unbondingBlocks) || (unbondingBlocks as number) < 1) bad('"unbondingBlocks" must be a positive integer');
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
    unbondingBlocks: unbondingBlocks as number,
  };
}

/** The world state of block 0. */
export function genesisState(spec: GenesisSpec): StateChanges {
  const changes = new Map<string, Uint8Array>();
  for (const account of spec.accounts) changes.set(accountKey(account.address), encodeAccount({ omc: account.omc, ogt: account.ogt, nonce: 0, bonded: {} }));
  changes.set(UNBONDING_BLOCKS_KEY, encode(spec.unbondingBlocks));
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
  };
}

export function genesisHash(spec: GenesisSpec): Hex {
  return headerHash(genesisHeader(spec));
}
