import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeProcess, type RunningNode } from '../helpers/cli.js';
import { startAnvil } from '../helpers/foundry.js';
import { tempDir } from '../helpers/test-node.js';

// A Hardhat project (test/fixtures/hardhat-project, installed by .ci/run) whose test uses Hardhat's
// network helpers, run unchanged on `svc-node start --dev` and on Anvil: both pass, and what the test
// saw is the same.
const PROJECT = resolve('test/fixtures/hardhat-project');

/** `npx hardhat test --network <name>` in the project; what its test saw. */
function hardhatTest(network: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  const out = join(tempDir('svc-hardhat-'), 'seen.json');
  return new Promise((done, fail) => {
    const child = spawn(join(PROJECT, 'node_modules/.bin/hardhat'), ['test', '--network', network], {
      cwd: PROJECT,
      env: { ...process.env, ...env, OUT: out, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return fail(new Error(`hardhat test --network ${network} exited ${code}:\n${log}`));
      done(JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>);
    });
  });
}

describe("Hardhat's network helpers", () => {
  let node: RunningNode;
  let anvil: { url: string; stop: () => Promise<void> };
  beforeAll(async () => {
    if (!existsSync(join(PROJECT, 'node_modules/.bin/hardhat')))
      throw new Error(`${PROJECT} is not installed: run \`npm ci --prefix ${PROJECT}\` (.ci/run does)`);
    [node, anvil] = await Promise.all([
      startNodeProcess([
        '--dev',
        '--storage',
        'memory',
        '--data-dir',
        tempDir('svc-hardhat-node-'),
        '--bind',
        '127.0.0.1:0',
        '--p2p-port',
        '0',
      ]),
      startAnvil(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([node?.stop(), anvil?.stop()]);
  });

  it('a project test using loadFixture, time, mine, setBalance, impersonateAccount and takeSnapshot passes on --dev and on Anvil, seeing the same', async () => {
    const [ours, theirs] = await Promise.all([
      hardhatTest('svc', { SVC_URL: node.url }),
      hardhatTest('anvil', { ANVIL_URL: anvil.url }),
    ]);
    expect(ours).toEqual(theirs);
    expect(ours).toMatchObject({
      deployStatus: '0x1',
      slotChanged: `0x${'7'.padStart(64, '0')}`,
      slotBack: `0x${'2a'.padStart(64, '0')}`,
      increasedTo: true,
      mined: 5,
      minedWithInterval: 8,
      impersonatedStatus: '0x1',
      payeeBalance: '1000',
      restoredBy: 0,
    });
  }, 180_000);
});
