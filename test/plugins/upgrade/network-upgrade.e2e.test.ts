import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knownRulesVersions, NEWEST_RULES_VERSION } from '../../../chain/rules-version.js';
import { SvcClient } from '../../../sdk/index.js';
import { NodeProcess } from '../../../scripts/node-process.js';
import { run, SVC, SVC_NODE } from '../../helpers/cli.js';
import { releaseWithRulesVersion } from '../../helpers/releases.js';
import { tempDir, waitFor } from '../../helpers/test-node.js';

// An upgrade as operators run it (docs/keeping-a-network.md): a network of four validator processes
// from `svc-node init` on this release, and a full node; the validators adopt a plan for the next rules
// version, then each is stopped and started on the next release in turn (the other three keep the
// chain going); the chain passes the height without a pause; the full node, left on this release,
// stops before it with exit code 3 and refuses to go on, then goes on once started on the next
// release; a new node of the next release syncs from the genesis across the height.
const BLOCK_MS = 1_000;
const NEXT = NEWEST_RULES_VERSION + 1;
const root = tempDir('svc-upgrade-');
const processes: NodeProcess[] = [];
afterAll(async () => {
  await Promise.all(processes.map((node) => node.close()));
});

/** `svc-node init --validators 4`, its configs made to listen on ports the OS picks (peers are given at start). */
async function initNetwork(): Promise<string[]> {
  const out = join(root, 'network');
  const made = await run(SVC_NODE, ['init', '--validators', '4', '--out', out, '--block-time', String(BLOCK_MS)]);
  expect(made.code).toBe(0);
  return [0, 1, 2, 3].map((i) => {
    const file = join(out, `validator${i}.json`);
    const config = JSON.parse(readFileSync(file, 'utf8')) as { rpc: { bind: string }; p2p: Record<string, unknown> };
    config.rpc.bind = '127.0.0.1:0';
    config.p2p = { host: '127.0.0.1', port: 0 };
    writeFileSync(file, JSON.stringify(config, null, 2));
    return file;
  });
}

function nodeProcess(name: string, args: string[], bin = SVC_NODE): NodeProcess {
  const node = new NodeProcess({ name, args, bin });
  processes.push(node);
  return node;
}

const clientOf = (node: NodeProcess): SvcClient => new SvcClient({ url: node.url, timeoutMs: 10_000 });
const headOf = (node: NodeProcess): Promise<number> => clientOf(node).blockNumber();
const exitOf = (node: NodeProcess): Promise<number | null> =>
  node.process?.exitCode !== null && node.process?.exitCode !== undefined
    ? Promise.resolve(node.process.exitCode)
    : new Promise((resolve) => node.process!.once('exit', (code) => resolve(code)));

describe('a rules upgrade on a running network', () => {
  it('four validators adopt a plan, move to the next release one at a time, and pass its height without a pause; a node left behind stops with code 3 and goes on once upgraded; a new node syncs across it', {
    timeout: 300_000,
  }, async () => {
    const nextRelease = releaseWithRulesVersion(root, NEXT);
    const configs = await initNetwork();
    const validators: NodeProcess[] = [];
    for (const [i, config] of configs.entries()) {
      const node = nodeProcess(`validator${i}`, ['--config', config]);
      await node.start(validators.map((v) => v.p2p));
      validators.push(node);
    }
    const full = nodeProcess('full', [
      '--role',
      'full',
      '--network',
      'devnet',
      '--genesis',
      join(root, 'network/genesis.json'),
      '--data-dir',
      join(root, 'full'),
    ]);
    await full.start(validators.map((v) => v.p2p));
    const fullExit = exitOf(full);
    const client = clientOf(validators[0]!);
    await waitFor(
      () => headOf(full),
      (h) => h >= 3,
      60_000,
      'the four validators to make blocks and the full node to follow',
    );

    // The plan: proposed by one validator, approved by two more (3 of 4 equal stakes: more than 2/3).
    const height = (await client.blockNumber()) + 75;
    // A validator signs as its operator with its consensus key (`svc-node init` makes them one).
    const operatorKey = (i: number) => join(root, `network/validator${i}/validator.key`);
    const proposed = await run(SVC, [
      'upgrade',
      'propose',
      '--version',
      String(NEXT),
      '--height',
      String(height),
      '--name',
      'next',
      '--key-file',
      operatorKey(0),
      '--wait',
      '--url',
      validators[0]!.url,
    ]);
    expect(proposed.code, proposed.stdout + proposed.stderr).toBe(0);
    for (const i of [1, 2]) {
      const approved = await run(SVC, [
        'upgrade',
        'approve',
        '1',
        '--key-file',
        operatorKey(i),
        '--wait',
        '--url',
        validators[i]!.url,
      ]);
      expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    }
    const plan = await client.getUpgradePlan();
    expect(plan).toMatchObject({ planId: 1, version: NEXT, height, adopted: true });
    expect((await client.chainInfo()).rulesSchedule).toEqual([
      { version: NEWEST_RULES_VERSION, height: 0 },
      { version: NEXT, height },
    ]);
    await waitFor(
      () => full.output(),
      (out) => out.includes(`it will stop before block ${height}`),
      10_000,
      'the full node to warn that it will stop',
    );

    // One validator at a time: stopped, the next release installed, started on the same data dir.
    for (const [i, node] of validators.entries()) {
      expect(await node.stop('SIGTERM')).toBe(0);
      node.useRelease(nextRelease);
      await node.start(validators.filter((v) => v !== node).map((v) => v.p2p));
      const others = Math.max(...(await Promise.all(validators.filter((v) => v !== node).map(headOf))));
      await waitFor(
        () => headOf(node),
        (h) => h >= others + 2,
        60_000,
        `validator${i} on the next release to follow again`,
      );
    }
    expect(await client.blockNumber()).toBeLessThan(height - 3);

    // The height passes: the validators go on under the next version, with no gap over two block times.
    await waitFor(
      () => client.blockNumber(),
      (h) => h >= height + 3,
      120_000,
      'the chain to pass the upgrade height',
    );
    expect((await client.chainInfo()).rulesVersion).toBe(NEXT);
    const times: number[] = [];
    for (let h = height - 2; h <= height + 2; h++) times.push((await client.getBlockByNumber(h)).timestamp);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(2 * BLOCK_MS);

    // The full node left on this release stopped before the height, and refuses to go on with it.
    const reason = `block ${height} runs chain rules version ${NEXT}, which this release does not implement (it implements ${knownRulesVersions()})`;
    expect(await fullExit).toBe(3);
    expect(full.output()).toContain(reason);
    const args = ['--role', 'full', '--network', 'devnet', '--genesis', join(root, 'network/genesis.json')];
    const again = await run(SVC_NODE, [
      'start',
      ...args,
      '--data-dir',
      join(root, 'full'),
      '--bind',
      '127.0.0.1:0',
      '--p2p-port',
      '0',
    ]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`svc-node: ${reason}`);
    // On the next release it goes on from where it stopped, on the same data dir.
    full.useRelease(nextRelease);
    await full.start(validators.map((v) => v.p2p));
    const opened = full
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"chain open"'))
      .map((line) => (JSON.parse(line) as { height: number }).height);
    expect(opened.at(-1)).toBe(height - 1);
    // A new node of the next release syncs from the genesis across the height.
    const fresh = nodeProcess('fresh', [...args, '--data-dir', join(root, 'fresh')], nextRelease);
    await fresh.start(validators.map((v) => v.p2p));
    const top = await client.blockNumber();
    await waitFor(
      () => Promise.all([headOf(full), headOf(fresh)]),
      (heads) => heads.every((h) => h >= top),
      60_000,
      'the upgraded full node and a new node to reach the head',
    );

    // Every node holds the same blocks and state roots, before and after the height.
    const nodes = [...validators, full, fresh];
    for (let h = 1; h <= top; h++) {
      const blocks = await Promise.all(nodes.map((node) => clientOf(node).getBlockByNumber(h)));
      for (const block of blocks)
        expect([h, block.hash, block.stateRoot]).toEqual([h, blocks[0]!.hash, blocks[0]!.stateRoot]);
    }
  });
});
