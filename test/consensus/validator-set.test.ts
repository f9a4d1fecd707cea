import { describe, expect, it } from 'vitest';
import {
  nextSet,
  proposerAfter,
  step,
  type PrioritizedValidator,
  type Validator,
} from '../../consensus/validator-set.js';

const validator = (operator: string, power: bigint): Validator => ({ operator, consensusKey: `0x${operator}`, power });

/** How often each proposes over `steps` steps from a fresh set. */
function counts(validators: Validator[], steps: number): Map<string, number> {
  let set: PrioritizedValidator[] = nextSet([], validators);
  const seen = new Map<string, number>();
  for (let i = 0; i < steps; i++) {
    const next = step(set);
    set = next.set;
    seen.set(next.proposer.operator, (seen.get(next.proposer.operator) ?? 0) + 1);
  }
  return seen;
}

describe('proposer selection (stake-weighted round robin)', () => {
  it('takes turns among equal powers, in a fixed order', () => {
    const seen: string[] = [];
    let set = nextSet([], [validator('a', 10n), validator('b', 10n), validator('c', 10n), validator('d', 10n)]);
    for (let i = 0; i < 8; i++) {
      const next = step(set);
      set = next.set;
      seen.push(next.proposer.operator);
    }
    expect(seen.slice(0, 4).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(seen.slice(4)).toEqual(seen.slice(0, 4));
  });

  it('gives each validator turns in proportion to its power', () => {
    const seen = counts([validator('a', 15n), validator('b', 20n), validator('c', 28n), validator('d', 17n)], 8000);
    expect(seen.get('a')).toBe(1500);
    expect(seen.get('b')).toBe(2000);
    expect(seen.get('c')).toBe(2800);
    expect(seen.get('d')).toBe(1700);
  });

  it('follows the documented sequence: powers 4, 2, 2, 2 give p0 p1 p2 p3 p0, repeated', () => {
    // Tendermint's proposer-selection spec (docs/spec/reactors/consensus/proposer-selection.md).
    let set: PrioritizedValidator[] = [
      { ...validator('p0', 4n), priority: 0n },
      { ...validator('p1', 2n), priority: 0n },
      { ...validator('p2', 2n), priority: 0n },
      { ...validator('p3', 2n), priority: 0n },
    ];
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      const next = step(set);
      set = next.set;
      seen.push(next.proposer.operator);
    }
    expect(seen.join(' ')).toBe('p0 p1 p2 p3 p0 '.repeat(4).trim());
  });

  it('keeps priorities centred and within twice the total power', () => {
    let set = nextSet([], [validator('a', 1n), validator('b', 1000n)]);
    for (let i = 0; i < 500; i++) {
      set = step(set).set;
      const priorities = set.map((v) => v.priority);
      const spread = priorities.reduce((m, p) => (p > m ? p : m)) - priorities.reduce((m, p) => (p < m ? p : m));
      expect(spread <= 2n * 1001n + 1001n).toBe(true);
    }
  });

  it('starts a joining validator at -1.125 × the total, so it does not propose at once, and keeps the others', () => {
    let set = nextSet([], [validator('a', 10n), validator('b', 10n)]);
    set = step(set).set;
    const joined = nextSet(set, [validator('a', 10n), validator('b', 10n), validator('c', 40n)]);
    const c = joined.find((v) => v.operator === 'c')!;
    expect(c.priority < 0n).toBe(true);
    expect(proposerAfter(joined, 1).proposer.operator).not.toBe('c');
    // Power 0 leaves the set.
    expect(nextSet(joined, [validator('a', 10n), validator('b', 0n)]).map((v) => v.operator)).toEqual(['a']);
  });

  it('is the same on every node: the input order does not matter', () => {
    const one = nextSet([], [validator('b', 20n), validator('a', 15n), validator('c', 28n)]);
    const two = nextSet([], [validator('c', 28n), validator('a', 15n), validator('b', 20n)]);
    expect(proposerAfter(one, 37)).toEqual(proposerAfter(two, 37));
  });
});
