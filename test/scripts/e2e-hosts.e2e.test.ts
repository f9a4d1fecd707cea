import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { HostNetwork } from '../../scripts/e2e/hosts.js';
import { run } from '../helpers/cli.js';

// The hosts profile as a user runs it: the built runner, each node in a network namespace of its own.
const E2E = resolve('dist/scripts/e2e.js');
const unavailable = HostNetwork.unavailable();
if (unavailable)
  console.warn(`e2e-hosts.e2e.test.ts skipped: the hosts profile cannot run here: ${unavailable} (CI runs it as root)`);
const kept: string[] = [];
afterAll(() => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(unavailable !== undefined)('the end-to-end runner on test hosts', () => {
  it('passes every check on the hosts profile: a network from svc-node init, each node on its own address, every perturbation including a host link cut; and leaves no namespace behind', {
    timeout: 600_000,
  }, async () => {
    const result = await run(E2E, ['--manifest', 'config/e2e/hosts.jsonc']);
    const dir = /logs and data dirs kept in (\S+)/.exec(result.stdout)?.[1];
    if (dir) kept.push(dir);
    if (result.code !== 0) console.log(`${result.stdout}\n${result.stderr}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^9 passed, 0 failed$/m);
    expect(result.stdout).toMatch(/^PASS nodes reach each other at their hosts' addresses, never at 127\.0\.0\.1$/m);
    expect(result.stdout).toMatch(/^svc-node init: 7 nodes on 10\.\d+\.\d+\.10–10\.\d+\.\d+\.16/m);
    const done = /^e2e hosts seed \d+: .* perturbations \((.*)\)$/m.exec(result.stdout)?.[1];
    for (const kind of ['kill', 'terminate', 'pause', 'restart', 'cut', 'link'])
      expect(done).toMatch(new RegExp(`\\b${kind} \\d`));
    const namespace = /network namespaces (svce2e\d+)-h0/.exec(result.stdout)![1]!;
    expect(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })).not.toContain(`${namespace}-`);
  });
});
