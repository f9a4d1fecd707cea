import type { MeteringLimits } from './wasm/instrument.js';

export type Runtime = 'wasm' | 'evm';

/** Per-job ceilings, the same on every node of a network (a chain parameter): they are part of the result. */
export interface JobLimits extends MeteringLimits {
  readonly maxOutputBytes: number;
  readonly maxLogBytes: number;
}

export const DEFAULT_JOB_LIMITS: JobLimits = {
  maxMemoryPages: 256, // 16 MiB
  maxCallDepth: 10_000,
  maxTableElements: 100_000,
  maxOutputBytes: 1 << 20,
  maxLogBytes: 64 << 10,
};

/** Everything a run needs, and nothing else: the same spec gives the same outcome anywhere. */
export interface JobSpec {
  readonly runtime: Runtime;
  readonly code: Uint8Array;
  readonly input: Uint8Array;
  readonly args: readonly string[];
  readonly gasLimit: bigint;
  /** Block time of assignment, ms since the epoch (the job's clock). */
  readonly timestamp: number;
  /** Height of the block that assigned the job (an EVM job's NUMBER). */
  readonly height: number;
  /** The job id's bytes: seeds the job's randomness. */
  readonly seed: Uint8Array;
  readonly limits: JobLimits;
}
