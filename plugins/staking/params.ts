import { UNIT } from '../../sdk/amount.js';
import { decode, encode } from '../../sdk/encoding.js';
import { GenesisError } from '../../chain/genesis.js';
import type { GenesisParameters } from '../../chain/contract.js';
import type { ReadState } from '../../chain/state/indexed.js';

/** A validator's stake (its voting power): 15 to 28 OGT, the devnet's published range. */
export const STAKE_RANGE = { minimum: 15n * UNIT, maximum: 28n * UNIT } as const;

/**
 * The genesis validator (named by the genesis file) is in the set with this power without a stake:
 * the devnet starts with it alone, as before staking existed.
 */
export const GENESIS_VALIDATOR_POWER = 20n * UNIT;

/**
 * Blocks per epoch: the validator set changes only at an epoch's last block (`params/epochBlocks`,
 * from a genesis file's `"epochBlocks"`; short by default, for a devnet).
 */
export const EPOCH_BLOCKS_KEY = 'params/epochBlocks';
export const DEFAULT_EPOCH_BLOCKS = 20;

export const epochBlocks = (read: ReadState): number => {
  const raw = read(EPOCH_BLOCKS_KEY);
  return raw ? decode<number>(raw) : DEFAULT_EPOCH_BLOCKS;
};

/** Whether the set changes at the end of this block: the last block of an epoch. */
export const isEpochEnd = (read: ReadState, height: number): boolean => height % epochBlocks(read) === 0;

/** Slashed from a validator's stake for double signing, in per mille (5%), before it is removed for good. */
export const DOUBLE_SIGN_SLASH_PER_MILLE = 50n;

/**
 * Downtime (Cosmos `x/slashing`'s signed-blocks window): a validator whose precommit is missing from
 * more than `maxMissedBlocks` of the last `livenessWindow` certificates is jailed (out of the set at
 * once) for `jailBlocks` blocks, after which `staking.unjail` brings it back at the next epoch.
 */
export interface LivenessParams {
  readonly window: number;
  readonly maxMissed: number;
  readonly jailBlocks: number;
}

const LIVENESS_PARAMS = {
  window: { key: 'params/livenessWindow', genesis: 'livenessWindow', fallback: 100 },
  maxMissed: { key: 'params/maxMissedBlocks', genesis: 'maxMissedBlocks', fallback: 50 },
  jailBlocks: { key: 'params/jailBlocks', genesis: 'jailBlocks', fallback: 100 },
} as const;

const numberAt = (read: ReadState, key: string, fallback: number): number => {
  const raw = read(key);
  return raw ? decode<number>(raw) : fallback;
};

export const livenessParams = (read: ReadState): LivenessParams => ({
  window: numberAt(read, LIVENESS_PARAMS.window.key, LIVENESS_PARAMS.window.fallback),
  maxMissed: numberAt(read, LIVENESS_PARAMS.maxMissed.key, LIVENESS_PARAMS.maxMissed.fallback),
  jailBlocks: numberAt(read, LIVENESS_PARAMS.jailBlocks.key, LIVENESS_PARAMS.jailBlocks.fallback),
});

const positiveInteger = (value: unknown, name: string): number => {
  if (!Number.isSafeInteger(value) || (value as number) < 1)
    throw new GenesisError(`genesis "${name}" must be a positive integer`);
  return value as number;
};

/**
 * A genesis file's `"epochBlocks"`, `"livenessWindow"`, `"maxMissedBlocks"` and `"jailBlocks"` into
 * block 0 when it has them (without them the devnet genesis, and its hash, stay as they were).
 */
export function stakingGenesis({ params }: GenesisParameters): [string, Uint8Array][] {
  const entries: [string, Uint8Array][] = [];
  if (params.epochBlocks !== undefined)
    entries.push([EPOCH_BLOCKS_KEY, encode(positiveInteger(params.epochBlocks, 'epochBlocks'))]);
  for (const { key, genesis } of Object.values(LIVENESS_PARAMS)) {
    if (params[genesis] !== undefined) entries.push([key, encode(positiveInteger(params[genesis], genesis))]);
  }
  const window = params.livenessWindow ?? LIVENESS_PARAMS.window.fallback;
  const maxMissed = params.maxMissedBlocks ?? LIVENESS_PARAMS.maxMissed.fallback;
  if ((maxMissed as number) >= (window as number))
    throw new GenesisError(
      `genesis "maxMissedBlocks" (${String(maxMissed)}) must be below "livenessWindow" (${String(window)})`,
    );
  return entries;
}
