import { describe, expect, it } from 'vitest';
import { run, SVC, SVC_NODE } from '../helpers/cli.js';

/** The `group action` pairs a bin's own help lists in backticks ("`job submit`, `job status <id>`"). */
async function actionsOf(bin: string): Promise<[string, string][]> {
  const help = (await run(bin, ['--help'])).stdout;
  const pairs = new Set<string>();
  for (const [, usage] of help.matchAll(/`([a-z-]+ [a-z-]+)[^`]*`/g)) pairs.add(usage!);
  return [...pairs].map((pair) => pair.split(' ') as [string, string]);
}

describe('`<bin> <group> <action> --help`', () => {
  for (const [name, bin] of [
    ['svc', SVC],
    ['svc-node', SVC_NODE],
  ] as const) {
    it(`${name}: prints each action's usage and only the options it takes, and exits 0`, async () => {
      const actions = await actionsOf(bin);
      expect(actions.length).toBeGreaterThan(name === 'svc' ? 25 : 2);
      // One CLI process at a time: forty at once would starve the suite's other tests of the CPU.
      for (const [group, action] of actions) {
        const result = await run(bin, [group, action, '--help']);
        expect({ group, action, code: result.code, stderr: result.stderr }).toEqual({
          group,
          action,
          code: 0,
          stderr: '',
        });
        expect(result.stdout).toContain(`$ ${name} ${group} ${action}`);
      }
    }, 120_000);
  }

  it("shows an action the options of that action, without another action's", async () => {
    const submit = await run(SVC, ['job', 'submit', '--help']);
    expect(submit.stdout).toMatch(/--code <file>\s+the WASI \.wasm module/);
    expect(submit.stdout).not.toContain('--requester');
    const list = await run(SVC, ['job', 'list', '-h']);
    expect(list.stdout).toContain('--requester');
    expect(list.stdout).not.toContain('--code <file>');
    // A flag's value before the group is not taken for the group.
    const behindUrl = await run(SVC, ['--url', 'http://127.0.0.1:1', 'validator', 'create', '--help']);
    expect([behindUrl.code, behindUrl.stdout]).toEqual([
      0,
      expect.stringContaining('$ svc validator create --stake <OGT>'),
    ]);
  });

  it('refuses an action the group does not have, naming the ones it has, with exit 2', async () => {
    const result = await run(SVC, ['job', 'sbumit', '--help']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining(
        'job: unknown action "sbumit" (job submit, job status, job output, job list, job estimate)',
      ),
    });
  });
});
