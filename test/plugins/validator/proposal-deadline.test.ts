import { describe, expect, it } from 'vitest';
import { proposalDeadline } from '../../../plugins/validator/proposal-deadline.js';

// A 1 s block time: round 0's propose timeout is the block time, the proposer's share half of it.
const BLOCK = 1000;

describe("a proposer's deadline at round 0", () => {
  it('counts from when the last height was decided when the chain runs behind its timestamps, not from a block time after the head', () => {
    // The head was stamped 2 s ago; the height was decided 300 ms ago and this validator entered the
    // next one 40 ms ago, after its commit.
    const now = 10_000;
    const deadline = proposalDeadline({
      now,
      blockTime: BLOCK,
      round: 0,
      entered: { at: now - 40, proposeTimeoutMs: BLOCK },
      headDue: now - 2000 + BLOCK,
      decidedAt: now - 300,
    });
    expect(deadline).toBe(now - 300 + BLOCK / 2);
  });

  it('counts from a block time after the head when the others waited for that after the decision', () => {
    // Decided 900 ms ago, the head stamped 1.2 s ago: the others entered 200 ms ago; this validator,
    // whose commit took longer, entered 50 ms ago.
    const now = 10_000;
    const deadline = proposalDeadline({
      now,
      blockTime: BLOCK,
      round: 0,
      entered: { at: now - 50, proposeTimeoutMs: BLOCK },
      headDue: now - 1200 + BLOCK,
      decidedAt: now - 900,
    });
    expect(deadline).toBe(now - 200 + BLOCK / 2);
  });

  it('counts from its own round start when that is the earliest (it learned of the decision late)', () => {
    const now = 10_000;
    const deadline = proposalDeadline({
      now,
      blockTime: BLOCK,
      round: 0,
      entered: { at: now - 20, proposeTimeoutMs: BLOCK },
      headDue: now + 100,
      decidedAt: now - 10,
    });
    expect(deadline).toBe(now - 20 + BLOCK / 2);
  });

  it('gives a tenth of the block time from now at least, and ends a tenth before its own propose timeout', () => {
    const now = 10_000;
    const base = { now, blockTime: BLOCK, round: 0, headDue: now - 3000, decidedAt: now - 2000 };
    expect(proposalDeadline({ ...base, entered: { at: now - 700, proposeTimeoutMs: BLOCK } })).toBe(now + BLOCK / 10);
    expect(proposalDeadline({ ...base, entered: { at: now - 850, proposeTimeoutMs: BLOCK } })).toBe(
      now - 850 + BLOCK - BLOCK / 10,
    );
  });
});

describe("a proposer's deadline at a later round", () => {
  it("counts from its own round start: the head's time and the decision say nothing about when the others entered it", () => {
    const now = 10_000;
    const deadline = proposalDeadline({
      now,
      blockTime: BLOCK,
      round: 2,
      entered: { at: now - 100, proposeTimeoutMs: 2 * BLOCK },
      headDue: now - 5000,
      decidedAt: now - 6000,
    });
    expect(deadline).toBe(now - 100 + BLOCK / 2);
  });
});
