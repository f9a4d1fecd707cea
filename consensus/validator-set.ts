/**
 * A validator set and who proposes: CometBFT's stake-weighted round robin
 * (spec/consensus/proposer-selection.md). Every validator's priority grows by its power each step;
 * the highest proposes and drops by the total power. Priorities stay within a window of twice the
 * total power (rescaled when they spread further) and are centred on zero; a validator that joins
 * starts at -1.125 × the total, so it cannot propose at once after (re)joining. Over any long run each
 * validator proposes in proportion to its power. Pure and deterministic: every node computes the same.
 */

export interface Validator {
  /** The operator's address: the validator's identity, and the tie-breaker (lower first). */
  readonly operator: string;
  /** Its consensus public key (0x hex). */
  readonly consensusKey: string;
  readonly power: bigint;
}

export interface PrioritizedValidator extends Validator {
  readonly priority: bigint;
}

/** How far priorities may spread, as a multiple of the total power. */
const PRIORITY_WINDOW_FACTOR = 2n;

export const totalPower = (set: readonly Validator[]): bigint => set.reduce((sum, v) => sum + v.power, 0n);

/** Floor division for bigints (Go's Euclidean Div for a positive divisor). */
const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

function rescale(priorities: bigint[], total: bigint): bigint[] {
  if (priorities.length === 0) return priorities;
  const window = PRIORITY_WINDOW_FACTOR * total;
  const diff = priorities.reduce((m, p) => (p > m ? p : m)) - priorities.reduce((m, p) => (p < m ? p : m));
  if (window === 0n || diff <= window) return priorities;
  const ratio = (diff + window - 1n) / window;
  return priorities.map((p) => p / ratio);
}

function centre(priorities: bigint[]): bigint[] {
  if (priorities.length === 0) return priorities;
  const avg = floorDiv(
    priorities.reduce((s, p) => s + p, 0n),
    BigInt(priorities.length),
  );
  return priorities.map((p) => p - avg);
}

/** Sorted by operator (the order every node holds a set in). */
const byOperator = <T extends Validator>(set: readonly T[]): T[] =>
  [...set].sort((a, b) => (a.operator < b.operator ? -1 : a.operator > b.operator ? 1 : 0));

/**
 * One step of proposer selection: the set after it and the validator it chose. Ties in priority go to
 * the lower operator address.
 */
export function step(set: readonly PrioritizedValidator[]): {
  set: PrioritizedValidator[];
  proposer: PrioritizedValidator;
} {
  if (set.length === 0) throw new Error('an empty validator set has no proposer');
  const total = totalPower(set);
  const sorted = byOperator(set);
  const priorities = centre(
    rescale(
      sorted.map((v) => v.priority),
      total,
    ),
  ).map((p, i) => p + sorted[i]!.power);
  let best = 0;
  for (let i = 1; i < priorities.length; i++) if (priorities[i]! > priorities[best]!) best = i;
  priorities[best] = priorities[best]! - total;
  const next = sorted.map((v, i) => ({ ...v, priority: priorities[i]! }));
  return { set: next, proposer: next[best]! };
}

/**
 * The set that takes over at an epoch boundary, with priorities: a validator that stays keeps its
 * priority, one that joins starts at -1.125 × the new total; then the set is centred. Validators of
 * power 0 leave.
 */
export function nextSet(
  previous: readonly PrioritizedValidator[],
  validators: readonly Validator[],
): PrioritizedValidator[] {
  const kept = new Map(previous.map((v) => [v.operator, v.priority]));
  const members = byOperator(validators.filter((v) => v.power > 0n));
  const total = totalPower(members);
  const joining = -(total + (total >> 3n));
  const priorities = centre(
    rescale(
      members.map((v) => kept.get(v.operator) ?? joining),
      total,
    ),
  );
  return members.map((v, i) => ({
    operator: v.operator,
    consensusKey: v.consensusKey,
    power: v.power,
    priority: priorities[i]!,
  }));
}

/** The proposer after `steps` steps from a set (a height's steps, then one more per round). */
export function proposerAfter(
  set: readonly PrioritizedValidator[],
  steps: number,
): { set: PrioritizedValidator[]; proposer: PrioritizedValidator } {
  if (steps < 1) throw new RangeError('a proposer is chosen by at least one step');
  let current = { set: [...set], proposer: set[0]! };
  for (let i = 0; i < steps; i++) current = step(current.set);
  return current;
}
