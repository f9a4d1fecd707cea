import { UNIT } from '../../../sdk/amount.js';
import { decode } from '../../../sdk/encoding.js';
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
  /**
   * Largest code named by the CID of a stored object: what one `oon.supplyCode` transaction can carry
   * (a raw transaction travels in at most 1 MiB, its bytes as hex) when a dispute needs the code on chain.
   */
  maxCodeBytesByCid: 448 * 1024,
  /** How long a dispute over a job whose code is named by CID waits for the code (`oon.supplyCode`) before the job is refunded. */
  codeSupplyWindow: { blocks: 20, ms: 20_000 },
  maxInputBytes: 64 * 1024,
  maxArgs: 64,
  maxArgBytes: 4096,
  /** Gas ceilings per job: bound the time any node spends re-executing one in a dispute. */
  maxGas: { wasm: 10_000_000_000n, evm: 30_000_000n } as const,
  /** Outputs up to this size travel in the reveal and live on chain; larger ones stay with the provider (the chain keeps the hash). */
  maxInlineOutput: 64 * 1024,
  /** How long an assigned provider has to commit its result, before the time its gas limit allows (commitWindowFor). */
  commitWindow: { blocks: 20, ms: 5_000 },
  /**
   * Run time allowed per unit of gas, in ns, on top of the commit window: about 4× what a quiet
   * machine takes (a slow, branchy WASM loop pays 2 gas per ~1.5 ns iteration; the EVM runs about 60
   * ns per gas). A busy provider machine ran WASM at 7 ns per gas and missed a 2 ns deadline: the
   * deadline is there to find providers that are gone, not to slash ones that share their cores.
   */
  nsPerGas: { wasm: 8n, evm: 250n } as const,
  /** How long, after the last commit, every replica has to reveal. */
  revealWindow: { blocks: 10, ms: 10_000 },
  /**
   * How long a single replica's result stays open to challenge (a genesis may set the time:
   * `"jobChallengeWindowMs"`): 3 s of block time, and at least the
   * block after the reveal's to land a challenge in (a window of 10 blocks made a job on 3 s blocks
   * wait 30 s for nothing: the time is what gives a challenger its chance, not the count).
   */
  challengeWindow: { blocks: 1, ms: 3_000 },
  /** How long a job may wait in the queue for a provider before it expires (refunded). */
  queueWindow: { blocks: 600, ms: 600_000 },
  /** Assignments a job gets (the first and reassignments after missed deadlines) before it fails, refunded. */
  maxAttempts: 3,
  /** OMC a challenger deposits: forfeited to the provider if the re-execution agrees with it. */
  challengeDeposit: 1n * UNIT,
  /** Share of its compute bond a provider loses for a missed deadline (per mille), and for a wrong result. */
  missSlashPerMille: 10n,
  wrongSlashPerMille: 100n,
  /** Most gas a contract's callback may be given (paid at the job's gas price from its escrow). */
  maxCallbackGas: 2_000_000n,
  /**
   * Gas of the callbacks one block's end makes at most (their gas limits together): callbacks run
   * outside the block gas limit, so this bounds the work. Those past it wait for the next block, in order.
   */
  callbackGasPerBlock: 30_000_000n,
  /** Longest output a callback carries; a longer one is passed empty (the contract has its hash, and jobStatus returns it). */
  maxCallbackOutput: 16 * 1024,
} as const;

/**
 * Blocks a settled job's record stays in the state: `params/jobRecordBlocks` (CBOR uint), set by a
 * genesis file's `"jobRecordBlocks"`, else this default (about 8 hours of 3 s blocks). After that the
 * record is history: an archive node answers for it always, others within their history window.
 */
export const DEFAULT_JOB_RECORD_BLOCKS = 10_000;

export { deadlineAfter, describeDeadline, isPast, isReached, type Deadline } from '../../../chain/deadline.js';

/** `params/jobChallengeWindowMs` (CBOR uint), from a genesis file's `"jobChallengeWindowMs"`: the challenge window's time. */
export const CHALLENGE_WINDOW_KEY = 'params/jobChallengeWindowMs';

/** A single replica's challenge window on this chain: the genesis's time when it set one, and at least one block. */
export function challengeWindowOf(read: (key: string) => Uint8Array | undefined): { blocks: number; ms: number } {
  const raw = read(CHALLENGE_WINDOW_KEY);
  return raw ? { blocks: JOB_PARAMS.challengeWindow.blocks, ms: decode<number>(raw) } : JOB_PARAMS.challengeWindow;
}

/** The commit window of a job: the base window, plus the time its gas limit may take to run. */
export function commitWindowFor(runtime: 'wasm' | 'evm', gasLimit: bigint): { blocks: number; ms: number } {
  const runMs = Number((gasLimit * JOB_PARAMS.nsPerGas[runtime]) / 1_000_000n);
  return { blocks: JOB_PARAMS.commitWindow.blocks, ms: JOB_PARAMS.commitWindow.ms + runMs };
}
