import { decode, encode } from '../../sdk/encoding.js';
import type { ReadState, WriteState } from '../../chain/state/indexed.js';
import type { PrioritizedValidator } from '../../consensus/validator-set.js';

/**
 * Staking as consensus state, under `staking/`:
 * - `staking/validators/<operator>` -> CBOR ValidatorRecord
 * - `staking/keys/<consensus key>` -> the operator using it (a key serves one validator)
 * - `staking/operators` -> CBOR sorted operator list (every record, for listing and epoch changes)
 * - `staking/set` -> CBOR [height, validators]: the set in force from the block after `height` (an
 *   epoch's end), each `[operator, consensus key, power, priority]` (decimal strings); absent until the
 *   first change, while the genesis validator is alone
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
  write(validatorKey(record.operator), encode(Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))));
}

export function readOperators(read: ReadState): string[] {
  const raw = read(OPERATORS_KEY);
  return raw ? decode<string[]>(raw) : [];
}

export function writeOperators(write: WriteState, operators: readonly string[]): void {
  write(OPERATORS_KEY, operators.length > 0 ? encode([...operators].sort()) : undefined);
}

/** The stored set and the epoch end it took over at; undefined while the genesis validator is alone. */
export function readSet(read: ReadState): { since: number; validators: PrioritizedValidator[] } | undefined {
  const raw = read(SET_KEY);
  if (!raw) return undefined;
  const [since, rows] = decode<[number, [string, string, string, string][]]>(raw);
  return { since, validators: rows.map(([operator, consensusKey, power, priority]) => ({ operator, consensusKey, power: BigInt(power), priority: BigInt(priority) })) };
}

export function writeSet(write: WriteState, since: number, validators: readonly PrioritizedValidator[]): void {
  write(SET_KEY, encode([since, validators.map((v) => [v.operator, v.consensusKey, v.power.toString(), v.priority.toString()])]));
}
