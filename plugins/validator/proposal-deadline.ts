import { executionBudget } from './producer.js';

/** What a proposer knows when it starts building (times on one monotonic clock, performance.now() ms). */
export interface ProposalTiming {
  readonly now: number;
  readonly blockTime: number;
  readonly round: number;
  /** When this validator entered the round and that round's propose timeout, if the round is the one it is in. */
  readonly entered?: { readonly at: number; readonly proposeTimeoutMs: number };
  /** Round 0: a block time after the head's timestamp, which the others wait for before they enter it. */
  readonly headDue?: number;
  /**
   * Round 0: when this validator learned the last height was decided. The others learned it at about
   * the same moment, and none enters the next height before that.
   */
  readonly decidedAt?: number;
}

/**
 * When the proposer's block is to be finished: its share of the block time counted from the round's
 * start, not from when building begins. The others' propose timeouts run from their own round start; a
 * proposer whose build waited behind its last commit, and then took its whole share, sent its proposal
 * after they had given up on it (BENCHMARKS.md). At round 0, a proposer that started later than the
 * others could have (it decided the last height behind them, or its commit took longer) counts from the
 * earliest they could have started: a block time after the head's timestamp, and not before the
 * decision.
 *
 * A tenth of the block time from now at least, so a proposer that is always late still fills some of
 * each block — but never later than a tenth of the block time before its own propose timeout ends: a
 * build that began 900 ms into a 1 s round, given its tenth, missed the others' timeouts and cost the
 * height a round; a nearly empty block sent in time gets the height decided (BENCHMARKS.md).
 */
export function proposalDeadline(timing: ProposalTiming): number {
  const { now, blockTime, round, entered } = timing;
  const local = entered?.at ?? now;
  // With the chain behind its timestamps (under load every validator starts a height at its commit),
  // the timestamp alone would put the others' start long before it and leave the proposer a tenth.
  const othersEarliest = Math.max(timing.headDue ?? -Infinity, timing.decidedAt ?? -Infinity);
  const began = round === 0 && othersEarliest > -Infinity ? Math.min(local, othersEarliest) : local;
  const wanted = Math.max(now + blockTime / 10, began + executionBudget(blockTime, 'consensus'));
  // From this validator's own round start: counted from the others' earliest start, a proposer on time
  // would be left less than the others wait for it.
  return entered ? Math.min(wanted, entered.at + entered.proposeTimeoutMs - blockTime / 10) : wanted;
}
