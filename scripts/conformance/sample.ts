import { Random } from '../e2e/random.js';
import type { StateCase } from './state-tests.js';

/**
 * A fixed, seeded sample of `size` cases drawn from every folder: each folder gives its share in
 * proportion to its cases (at least one), chosen by a seeded generator, so the same seed and
 * vectors always give the same sample.
 */
export function sampleCases(cases: readonly StateCase[], size: number, seed: number): StateCase[] {
  if (size >= cases.length) return [...cases];
  const byFolder = new Map<string, StateCase[]>();
  for (const testCase of cases) {
    const list = byFolder.get(testCase.folder);
    if (list) list.push(testCase);
    else byFolder.set(testCase.folder, [testCase]);
  }
  const random = Random.seeded(seed);
  const chosen: StateCase[] = [];
  for (const list of byFolder.values()) {
    const share = Math.max(1, Math.round((list.length * size) / cases.length));
    const pool = [...list];
    for (let i = 0; i < share && pool.length > 0; i++) {
      chosen.push(pool.splice(random.int(0, pool.length - 1), 1)[0]!);
    }
  }
  return chosen;
}
