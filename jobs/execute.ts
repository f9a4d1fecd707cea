import { sha256 } from '@noble/hashes/sha2.js';
import { instrument, type InstrumentedModule } from './wasm/instrument.js';
import { runWasm } from './wasm/run.js';
import type { JobOutcome } from './outcome.js';
import type { JobSpec } from './spec.js';

interface Compiled {
  readonly module: WebAssembly.Module;
  readonly instrumented: InstrumentedModule;
}

/** Compiled modules by code hash and limits: the same code runs many times (replicas, re-execution, retries). */
const compiled = new Map<string, Compiled>();
const MAX_CACHED = 32;

function compile(spec: JobSpec): Compiled {
  const key = `${Buffer.from(sha256(spec.code)).toString('hex')}:${spec.limits.maxMemoryPages}:${spec.limits.maxCallDepth}:${spec.limits.maxTableElements}`;
  const hit = compiled.get(key);
  if (hit) {
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  const instrumented = instrument(spec.code, spec.limits);
  const entry = { module: new WebAssembly.Module(instrumented.bytes), instrumented };
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, entry);
  return entry;
}

/** Runs a job to its outcome, on the calling thread (a worker's: see JobPool). */
export async function executeJob(spec: JobSpec): Promise<JobOutcome> {
  if (spec.runtime === 'evm') {
    const { runEvm } = await import('./evm.js');
    return runEvm(spec);
  }
  const { module, instrumented } = compile(spec);
  return runWasm(module, instrumented, {
    args: spec.args,
    stdin: spec.input,
    clockNs: BigInt(spec.timestamp) * 1_000_000n,
    seed: spec.seed,
    maxOutputBytes: spec.limits.maxOutputBytes,
    maxLogBytes: spec.limits.maxLogBytes,
    gasLimit: spec.gasLimit,
    maxCallDepth: spec.limits.maxCallDepth,
  });
}
