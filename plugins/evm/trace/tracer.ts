import type { EVMInterface } from '@ethereumjs/evm';
import type { EvmOutcome } from '../runner.js';

/** What a trace may take before it is stopped: geth's default timeout, and a bound on what it keeps. */
export interface TraceLimits {
  /** Wall-clock ms the traced run may take. */
  readonly timeoutMs: number;
  /** The most steps (opcodes) a struct log keeps. */
  readonly maxSteps: number;
}

export const DEFAULT_TRACE_LIMITS: TraceLimits = { timeoutMs: 5_000, maxSteps: 100_000 };

/** Why a traced run was stopped before its end (geth's words: "execution timeout"). */
export class TraceAbortedError extends Error {
  override name = 'TraceAbortedError';
}

/**
 * Watches one run of the EVM (a transaction or a call) through the EVM's events and builds what a
 * `debug_trace*` method answers. Attached to the VM that runs it for the run's length only.
 */
export interface Tracer {
  attach(evm: EVMInterface): () => void;
  /** The answer, once the run has ended. */
  result(outcome: EvmOutcome, run: TracedRun): unknown;
  /**
   * Reads what the answer needs of the state the run began on (after the run, before `result`), and
   * of the state it left where the run's writes were kept (`after`: a mined transaction's replay).
   */
  settle?(
    before: (key: string) => Promise<Uint8Array | undefined>,
    run: TracedRun,
    after?: (key: string) => Promise<Uint8Array | undefined>,
  ): Promise<void>;
}

/** What the traced run was, as a tracer's answer names it. */
export interface TracedRun {
  readonly from: string;
  readonly to?: string;
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly input: Uint8Array;
}

/** Stops a run that took longer than the limit: checked from the tracer's own events. */
export function deadline(limits: TraceLimits): () => void {
  const until = Date.now() + limits.timeoutMs;
  return () => {
    if (Date.now() > until)
      throw new TraceAbortedError(`execution timeout: the trace took longer than ${limits.timeoutMs} ms`);
  };
}
