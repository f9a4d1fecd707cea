import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { timeoutSignal } from '../../kernel/timeout-signal.js';

const root = join(import.meta.dirname, '..', '..');

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const aborted = (signal: AbortSignal): Promise<unknown> =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist', 'test', '.git'].includes(entry.name) ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('timeoutSignal', () => {
  it('aborts with a TimeoutError after its time, also when garbage collection ran meanwhile and also combined with other signals', {
    timeout: 5_000,
  }, async () => {
    const stopping = new AbortController();
    // Nothing but the listeners' promises refers to them, as with a fetch awaiting its deadline.
    const reasons = Array.from({ length: 50 }, (_, i) =>
      aborted(i % 2 === 0 ? timeoutSignal(100) : timeoutSignal(100, stopping.signal)),
    );
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 20));
    collectGarbage();
    const all = await Promise.all(reasons);
    expect(all.map((reason) => (reason as DOMException).name)).toEqual(Array(50).fill('TimeoutError'));
  });

  it('aborts with the reason of a signal it was given that aborts first', async () => {
    const stopping = new AbortController();
    const signal = timeoutSignal(60_000, stopping.signal);
    stopping.abort(new Error('stopping'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('stopping');
  });

  it('is what the code uses where a deadline joins other signals (a combined AbortSignal.timeout may never fire)', () => {
    const combined = /AbortSignal\.any\(\[[^\]]*AbortSignal\.timeout\(/;
    const offenders = sourceFiles(root)
      .filter((file) => combined.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });
});
