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

/** A genesis file's `"epochBlocks"` into block 0 when it has one (without it the devnet genesis, and its hash, stay as they were). */
export function stakingGenesis({ params }: GenesisParameters): [string, Uint8Array][] {
  const blocks = params.epochBlocks;
  if (blocks === undefined) return [];
  if (!Number.isSafeInteger(blocks) || (blocks as number) < 1) throw new GenesisError('genesis "epochBlocks" must be a positive integer');
  return [[EPOCH_BLOCKS_KEY, encode(blocks)]];
}
