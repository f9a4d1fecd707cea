import { afterAll, describe, expect, it } from 'vitest';
import { knownRulesVersions } from '../../chain/rules-version.js';
import { run, startNodeProcess, SVC, SVC_NODE, type RunningNode } from '../helpers/cli.js';
import { rpc, tempDir, waitFor } from '../helpers/test-node.js';

const height = async (url: string): Promise<number> => (await rpc<number>(url, 'svc_blockNumber')).body.result!;
const exitOf = (node: RunningNode): Promise<number | null> =>
  node.child.exitCode !== null
    ? Promise.resolve(node.child.exitCode)
    : new Promise((resolve) => node.child.once('exit', (code) => resolve(code)));

const nodes: RunningNode[] = [];
afterAll(async () => {
  for (const node of nodes) if (node.child.exitCode === null) await node.stop();
});

describe('svc upgrade and --halt-height, as an operator types them', () => {
  it('a devnet adopts `svc upgrade propose --dev-validator` of a version the release lacks at once, and its node exits 3 before that height, and again when started', async () => {
    const dataDir = tempDir();
    const args = ['--role', 'validator', '--data-dir', dataDir, '--bind', '127.0.0.1:0', '--p2p-port', '0'];
    const node = await startNodeProcess([...args, '--block-time', '100', '--log-format', 'json']);
    nodes.push(node);
    const exited = exitOf(node);
    await waitFor(
      () => height(node.url),
      (h) => h >= 2,
      15_000,
      'height 2',
    );
    const at = (await height(node.url)) + 20;
    const proposed = await run(SVC, [
      'upgrade',
      'propose',
      '--version',
      '99',
      '--height',
      String(at),
      '--name',
      'next',
      '--dev-validator',
      '--wait',
      '--url',
      node.url,
    ]);
    expect(proposed.code).toBe(0);
    expect(proposed.stdout).toMatch(
      new RegExp(`^plan 1 "next": chain rules version 99 from block ${at}, adopted at block \\d+\\n`),
    );
    const plan = await run(SVC, ['upgrade', 'plan', '--json', '--url', node.url]);
    expect(JSON.parse(plan.stdout)).toMatchObject({ planId: 1, version: 99, height: at, adopted: true });
    const reason = `block ${at} runs chain rules version 99, which this release does not implement (it implements ${knownRulesVersions()})`;
    expect(await exited).toBe(3);
    expect(node.output()).toContain(reason);
    const again = await run(SVC_NODE, ['start', ...args]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`svc-node: ${reason}`);
  });

  it('--halt-height stops a node cleanly before that block, exiting 0', async () => {
    const dataDir = tempDir();
    const node = await startNodeProcess([
      '--role',
      'validator',
      '--data-dir',
      dataDir,
      '--bind',
      '127.0.0.1:0',
      '--p2p-port',
      '0',
      '--block-time',
      '100',
      '--halt-height',
      '5',
      '--log-format',
      'json',
    ]);
    nodes.push(node);
    expect(await exitOf(node)).toBe(0);
    const halt = node
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; height?: number; exitCode?: number })
      .find((line) => line.msg.startsWith('halt height'));
    expect(halt).toMatchObject({
      msg: 'halt height 5 reached: stopped before block 5, as --halt-height asked',
      height: 5,
      exitCode: 0,
    });
  });

  it('refuses a plan it cannot send with a line naming the option, exit 2', async () => {
    const missing = await run(SVC, ['upgrade', 'propose', '--height', '100', '--dev-validator']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--version: expected a whole number');
    const both = await run(SVC, ['upgrade', 'approve', '1', '--dev-validator', '--dev-account', '1']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give one signer: --dev-validator, --key-file or --dev-account');
    const unknown = await run(SVC, ['upgrade', 'cancel']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown upgrade action "cancel" (expected one of propose, approve, plan)');
  });
});
