import { describe, expect, it } from 'vitest';
import { proposalDeadline } from '../../../plugins/validator/proposal-deadline.js';

// A 1 s block time: round 0's propose timeout is the block time, the proposer's share half of it.
const BLOCK = 1000;
const NOW = 10_000;

/** The deadline, in ms from now, of a proposer that entered the round `enteredAgo` ms ago (times in ms before now). */
function deadlineFromNow(moment: {
  round?: number;
  enteredAgo: number;
  proposeTimeoutMs?: number;
  headStampedAgo: number;
  decidedAgo: number;
}): number {
  return (
    proposalDeadline({
      now: NOW,
      blockTime: BLOCK,
      round: moment.round ?? 0,
      entered: { at: NOW - moment.enteredAgo, proposeTimeoutMs: moment.proposeTimeoutMs ?? BLOCK },
      headDue: NOW - moment.headStampedAgo + BLOCK,
      decidedAt: NOW - moment.decidedAgo,
    }) - NOW
  );
}

describe("a proposer's deadline at round 0", () => {
  it('counts from when the last height was decided when the chain runs behind its timestamps, not from a block time after the head', () => {
    // The head was stamped 2 s ago; the height was decided 300 ms ago, and this validator entered the
    // next one 40 ms ago, after its commit. From the head's time it would have been left a tenth.
    expect(deadlineFromNow({ enteredAgo: 40, headStampedAgo: 2000, decidedAgo: 300 })).toBe(-300 + BLOCK / 2);
  });

  it('counts from a block time after the head when the others waited for that after the decision', () => {
    // Decided 900 ms ago, the head stamped 1.2 s ago: the others entered 200 ms ago; this validator,
    // whose commit took longer, entered 50 ms ago.
    expect(deadlineFromNow({ enteredAgo: 50, headStampedAgo: 1200, decidedAgo: 900 })).toBe(-200 + BLOCK / 2);
  });

  it('counts from its own round start when that is the earliest (it learned of the decision late)', () => {
    expect(deadlineFromNow({ enteredAgo: 20, headStampedAgo: 900, decidedAgo: 10 })).toBe(-20 + BLOCK / 2);
  });

  it('gives a tenth of the block time from now at least, and ends a tenth before its own propose timeout', () => {
    expect(deadlineFromNow({ enteredAgo: 700, headStampedAgo: 4000, decidedAgo: 2000 })).toBe(BLOCK / 10);
    expect(deadlineFromNow({ enteredAgo: 850, headStampedAgo: 4000, decidedAgo: 2000 })).toBe(
      -850 + BLOCK - BLOCK / 10,
    );
  });
});

describe("a proposer's deadline at a later round", () => {
  it("counts from its own round start: the head's time and the decision say nothing about when the others entered it", () => {
    expect(
      deadlineFromNow({
        round: 2,
        enteredAgo: 100,
        proposeTimeoutMs: 2 * BLOCK,
        headStampedAgo: 6000,
        decidedAgo: 6000,
      }),
    ).toBe(-100 + BLOCK / 2);
  });
});
