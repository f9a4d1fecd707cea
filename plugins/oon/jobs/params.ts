import { UNIT } from '../../../sdk/amount.js';
import { DEFAULT_JOB_LIMITS, type JobLimits } from '../../../jobs/spec.js';

/**
 * The job rules' parameters. They are chain rules (every node must use the same), fixed in code for
 * every network for now; a network that needs others changes them with a new version of the rules.
 */
export const JOB_PARAMS = {
  /** Per-job ceilings written into every run. */
  limits: DEFAULT_JOB_LIMITS as JobLimits,
  /** Largest module or bytecode submitted inline. */
  maxCodeBytes: 192 * 1024,
  maxInputBytes: 64 * 1024,
  maxArgs: 64,
  maxArgBytes: 4096,
  /** Gas ceilings per job: bound the time any node spends re-executing one in a dispute. */
  maxGas: { wasm: 10_000_000_000n, evm: 30_000_000n } as const,
  /** Outputs up to this size travel in the reveal and live on chain; larger ones stay with the provider (the chain keeps the hash). */
  maxInlineOutput: 64 * 1024,
  /** Blocks an assigned provider has to commit its result. */
  commitBlocks: 20,
  /** Blocks, after the last commit, for every replica to reveal. */
  revealBlocks: 10,
  /** Blocks after a single replica's reveal during which anyone may challenge it. */
  challengeBlocks: 10,
  /** Blocks a job may wait in the queue for a provider before it expires (refunded). */
  queueBlocks: 600,
  /** Assignments a job gets (the first and reassignments after missed deadlines) before it fails, refunded. */
  maxAttempts: 3,
  /** OMC a challenger deposits: forfeited to the provider if the re-execution agrees with it. */
  challengeDeposit: 1n * UNIT,
  /** Share of its compute bond a provider loses for a missed deadline (per mille), and for a wrong result. */
  missSlashPerMille: 10n,
  wrongSlashPerMille: 100n,
} as const;
