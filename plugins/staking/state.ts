import { decode, encode } from '../../sdk/encoding.js';
import type { ReadState, WriteState } from '../../chain/state/indexed.js';
import type { PrioritizedValidator } from '../../consensus/validator-set.js';

/**
 * Staking as consensus state, under `staking/`:
 * - `staking/validators/<operator>` -> CBOR ValidatorRecord
 * - `staking/keys/<consensus key>` -> the operator using it (a key serves one validator)
 * - `staking/operators` -> CBOR sorted operator list (every record, for listing and epoch changes)
 * - `staking/set` -> CBOR [height, validators, previous]: the set in force from the block after
 *   `height` (an epoch's end, or a block that removed a validator), each `[operator, consensus key,
 *   power, priority]` (decimal strings), and the set it replaced (which governed block `height`
 *   itself: its certificate is judged by it); absent until the first change, while the genesis
 *   validator is alone
 */
export type ValidatorStatus = 'pending' | 'active' | 'unbonding';

export interface ValidatorRecord {
  readonly operator: string;
  readonly consensusKey: string;
  readonly moniker: string;
  /** OGT base units, decimal: the voting power from the next epoch. */
  stake: string;
  status: ValidatorStatus;
  readonly createdAt: number;
  /** The epoch end from which it is in the set. */
  joinedAt?: number;
  /** Unbonding: the block at whose end the stake returns. */
  releaseAt?: number;
}

export const validatorKey = (operator: string): string => `staking/validators/${operator}`;
export const consensusKeyIndex = (key: string): string => `staking/keys/${key}`;
export const OPERATORS_KEY = 'staking/operators';
export const SET_KEY = 'staking/set';

export function readValidator(read: ReadState, operator: string): ValidatorRecord | undefined {
  const raw = read(validatorKey(operator));
  return raw ? decode<ValidatorRecord>(raw) : undefined;
}

export function writeValidator(write: WriteState, record: ValidatorRecord): void {
  write(
    validatorKey(record.operator),
    encode(Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))),
  );
}

export function readOperators(read: ReadState): string[] {
  const raw = read(OPERATORS_KEY);
  return raw ? decode<string[]>(raw) : [];
}

export function writeOperators(write: WriteState, operators: readonly string[]): void {
  write(OPERATORS_KEY, operators.length > 0 ? encode([...operators].sort()) : undefined);
}

/** A set of validators and the block after which it is in force. */
export interface StoredSet {
  readonly since: number;
  readonly validators: readonly PrioritizedValidator[];
  /** The set it replaced: the one that governed block `since`. */
  readonly previous: readonly PrioritizedValidator[];
}

type Row = [string, string, string, string];
const fromRows = (rows: Row[]): PrioritizedValidator[] =>
  rows.map(([operator, consensusKey, power, priority]) => ({
    operator,
    consensusKey,
    power: BigInt(power),
    priority: BigInt(priority),
  }));
const toRows = (set: readonly PrioritizedValidator[]): Row[] =>
  set.map((v) => [v.operator, v.consensusKey, v.power.toString(), v.priority.toString()]);

/**
 * Sets decoded, by the stored bytes they came from: the set is read for every vote and proposal a
 * validator receives, and a write always stores new bytes, so the same bytes are the same set.
 */
const decodedSets = new WeakMap<Uint8Array, StoredSet>();

/** The stored set and the block it took over after; undefined while the genesis validator is alone. */
export function readSet(read: ReadState): StoredSet | undefined {
  const raw = read(SET_KEY);
  if (!raw) return undefined;
  let set = decodedSets.get(raw);
  if (!set) {
    const [since, rows, previous] = decode<[number, Row[], Row[]]>(raw);
    set = Object.freeze({
      since,
      validators: Object.freeze(fromRows(rows)),
      previous: Object.freeze(fromRows(previous)),
    });
    decodedSets.set(raw, set);
  }
  return set;
}

export function writeSet(
  write: WriteState,
  since: number,
  validators: readonly PrioritizedValidator[],
  previous: readonly PrioritizedValidator[],
): void {
  write(SET_KEY, encode([since, toRows(validators), toRows(previous)]));
}

/**
 * Standing outside the set, for any validator (the genesis validator too, which has no record):
 * - `staking/jailed/<operator>` -> CBOR height from which `staking.unjail` is accepted
 * - `staking/tombstoned/<operator>` -> CBOR height of the double sign's punishment: out for good
 * - `staking/missed/<operator>` -> CBOR sorted heights, inside the liveness window, whose
 *   certificate lacks its precommit (absent when none)
 */
export const jailedKey = (operator: string): string => `staking/jailed/${operator}`;
export const tombstonedKey = (operator: string): string => `staking/tombstoned/${operator}`;
export const missedKey = (operator: string): string => `staking/missed/${operator}`;

export const readNumber = (read: ReadState, key: string): number | undefined => {
  const raw = read(key);
  return raw ? decode<number>(raw) : undefined;
};

export function readMissed(read: ReadState, operator: string): number[] {
  const raw = read(missedKey(operator));
  return raw ? decode<number[]>(raw) : [];
}

export function writeMissed(write: WriteState, operator: string, heights: readonly number[]): void {
  write(missedKey(operator), heights.length > 0 ? encode(heights) : undefined);
}

/** Whether a validator is kept out of the set: jailed (until it unjails) or tombstoned (for good). */
export const isExcluded = (read: ReadState, operator: string): boolean =>
  read(jailedKey(operator)) !== undefined || read(tombstonedKey(operator)) !== undefined;
