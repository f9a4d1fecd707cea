import { afterEach, describe, expect, it } from 'vitest';
import { JobPool, JobTimeoutError } from '../../jobs/pool.js';
import { ModuleRejectedError } from '../../jobs/wasm/binary.js';
import { DEFAULT_JOB_LIMITS, type JobSpec } from '../../jobs/spec.js';
import { fixture } from '../helpers/wat.js';

let pool: JobPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

const job = (name: string, options: { input?: string; gasLimit?: bigint } = {}): JobSpec => ({
  runtime: 'wasm',
  code: fixture(name),
  input: new TextEncoder().encode(options.input ?? ''),
  args: ['job'],
  gasLimit: options.gasLimit ?? 10_000_000n,
  timestamp: 1_700_000_000_000,
  height: 1,
  seed: new Uint8Array(32),
  limits: DEFAULT_JOB_LIMITS,
});

describe('the job pool', () => {
  it('runs jobs on worker threads and gives their outcomes', async () => {
    pool = new JobPool({ size: 2, timeoutMs: 30_000 });
    const outcomes = await Promise.all([
      pool.run(job('upper', { input: 'a' })),
      pool.run(job('upper', { input: 'b' })),
      pool.run(job('upper', { input: 'c' })),
    ]);
    expect(outcomes.map((o) => new TextDecoder().decode(o.output))).toEqual(['A', 'B', 'C']);
  });

  it('keeps the main thread free while a job spins, stops it at the time limit, and goes on with a fresh worker', async () => {
    pool = new JobPool({ size: 1, timeoutMs: 1_500 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const spinning = pool.run(job('spin', { gasLimit: 1n << 62n }));
    await expect(spinning).rejects.toBeInstanceOf(JobTimeoutError);
    clearInterval(timer);
    // The event loop kept turning the whole time the worker spun (a blocked loop would tick about once).
    expect(ticks).toBeGreaterThan(20);
    expect(new TextDecoder().decode((await pool.run(job('upper', { input: 'after' }))).output)).toBe('AFTER');
  });

  it('passes a refused module back as a rejection naming the feature', async () => {
    pool = new JobPool({ size: 1, timeoutMs: 30_000 });
    const refused = await pool.run(job('simd')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ModuleRejectedError);
    expect((refused as ModuleRejectedError).feature).toBe('SIMD');
  });
});
