import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dirs.js';

// `npm run e2e` as a user runs it: the built runner, real node processes on loopback.
const E2E = resolve('dist/scripts/e2e.js');
const kept: string[] = [];
afterAll(() => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true });
});

/** The check lines of a run's report: name -> PASS or FAIL. */
function verdicts(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^(PASS|FAIL) (.+)$/gm)].map((m) => [m[2]!, m[1]!]));
}

function keptDir(stdout: string): string | undefined {
  return /logs and data dirs kept in (\S+)/.exec(stdout)?.[1];
}

/** The nodes' logs of a run that should have passed, kept where CI keeps artifacts (the run's dir is removed). */
function keepLogs(dir: string): string {
  const into = resolve('test-results/e2e');
  mkdirSync(into, { recursive: true });
  for (const file of readdirSync(dir)) if (/\.(log|json)$/.test(file)) cpSync(join(dir, file), join(into, file));
  return into;
}

describe('the end-to-end runner', () => {
  it('passes every check on the 30-second profile: four validators and a follower, every operation and perturbation', {
    timeout: 600_000,
  }, async () => {
    const result = await run(E2E, ['--manifest', 'config/e2e/short.jsonc']);
    const dir = keptDir(result.stdout);
    if (dir) kept.push(dir);
    // On failure the whole report shows: which check, what it found, what was perturbed when.
    if (result.code !== 0)
      console.log(`${result.stdout}\n${result.stderr}${dir ? `\nnode logs copied to ${keepLogs(dir)}` : ''}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^8 passed, 0 failed$/m);
    // Each listed kind at least once, however few the schedule fitted in on a busy machine.
    const done = /^e2e \S+ seed \d+: .* perturbations \((.*)\)$/m.exec(result.stdout)?.[1];
    for (const kind of ['kill', 'terminate', 'pause', 'restart', 'cut'])
      expect(done).toMatch(new RegExp(`\\b${kind} \\d`));
    // A run that passes leaves nothing behind.
    expect(dir).toBeUndefined();
  });

  it('fails exactly the matching checks when the runner injects its faults: a node reporting a wrong balance, a transaction acknowledged and lost', {
    timeout: 300_000,
  }, async () => {
    const result = await run(E2E, [
      '--manifest',
      'config/e2e/runner-faults.jsonc',
      '--fault',
      'balance',
      '--fault',
      'drop-tx',
    ]);
    const dir = keptDir(result.stdout);
    if (dir) kept.push(dir);
    if (result.code !== 1) console.log(`${result.stdout}\n${result.stderr}`);
    expect(result.code).toBe(1);
    expect(verdicts(result.stdout)).toEqual({
      'one block hash and state root per height on every node': 'PASS',
      'no transaction in two blocks': 'PASS',
      'every acknowledged transaction mined or explained': 'FAIL',
      'balances, nonces, bonds, stakes, escrows and token balances equal the reference model': 'FAIL',
      'the faucet never granted an address twice within its cooldown': 'PASS',
      'never two finalized blocks at one height; no honest validator slashed': 'PASS',
      'every node healthy': 'PASS',
      'the workload was exercised': 'PASS',
    });
    expect(result.stdout).toMatch(/acknowledged by \w+ at .* was never mined/);
    expect(result.stdout).toMatch(/OMC (\d+), model (\d+)/);
    expect(result.stdout).toMatch(/^6 passed, 2 failed$/m);
    // A failed run keeps its logs and data dirs, and says where.
    expect(dir).toBeDefined();
  });

  it('refuses a manifest with a wrong key or value, naming it, before starting anything', async () => {
    const minutes = await run(E2E, ['--manifest', 'config/e2e/short.jsonc', '--minutes', 'x']);
    expect({ code: minutes.code, stderr: minutes.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining('--minutes must be a positive number, not "x"'),
    });
    const file = join(tempDir(), 'manifest.json');
    writeFileSync(file, JSON.stringify({ validators: { count: 4 }, perturbation: {} }));
    const unknown = await run(E2E, ['--manifest', file]);
    expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining('unknown manifest key "perturbation"'),
    });
    writeFileSync(file, JSON.stringify({ validators: { count: 11 } }));
    const tooMany = await run(E2E, ['--manifest', file]);
    expect({ code: tooMany.code, stderr: tooMany.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining('manifest key "validators.count"'),
    });
    writeFileSync(file, JSON.stringify({ perturbations: { kinds: ['link'] } }));
    const linkOnLoopback = await run(E2E, ['--manifest', file]);
    expect({ code: linkOnLoopback.code, stderr: linkOnLoopback.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining('link cuts a test host\'s link: it needs "hosts": true'),
    });
    const missing = await run(E2E, ['--manifest', 'no/such/manifest.json']);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining('no/such/manifest.json'),
    });
  });
});
