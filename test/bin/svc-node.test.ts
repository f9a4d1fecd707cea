import { createServer } from 'node:net';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, startNodeProcess, SVC, SVC_NODE } from '../helpers/cli.js';
import { rpc, tempDir, waitFor } from '../helpers/test-node.js';

const dirs: string[] = [];
function dir(): string {
  const d = tempDir('svc-cli-');
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const height = async (url: string): Promise<number> => (await rpc<number>(url, 'svc_blockNumber')).body.result!;

describe('svc-node start', () => {
  it('serves a growing chain, exits 0 on SIGINT, and continues from the stored height after restart', async () => {
    const dataDir = dir();
    const first = await startNodeProcess([
      '--role',
      'validator',
      '--data-dir',
      dataDir,
      '--bind',
      '127.0.0.1:0',
      '--block-time',
      '100',
      '--p2p-port',
      '0',
    ]);
    const reached = await waitFor(
      () => height(first.url),
      (h) => h >= 3,
      15_000,
      'height 3',
    );
    expect(await first.stop('SIGINT')).toBe(0);
    expect(first.output()).toContain('node stopped');
    const second = await startNodeProcess([
      '--role',
      'validator',
      '--data-dir',
      dataDir,
      '--bind',
      '127.0.0.1:0',
      '--block-time',
      '100',
    ]);
    expect(await height(second.url)).toBeGreaterThanOrEqual(reached);
    const block1 = (await rpc<{ height: number }>(second.url, 'svc_getBlockByNumber', [1])).body.result!;
    expect(block1.height).toBe(1);
    expect(await second.stop('SIGTERM')).toBe(0);
  });

  it('--storage memory writes nothing under the data dir, from start to stop', async () => {
    const dataDir = join(dir(), 'never-made');
    const node = await startNodeProcess([
      '--role',
      'validator',
      '--storage',
      'memory',
      '--data-dir',
      dataDir,
      '--bind',
      '127.0.0.1:0',
      '--block-time',
      '100',
    ]);
    await waitFor(
      () => height(node.url),
      (h) => h >= 2,
      15_000,
      'height 2',
    );
    expect(existsSync(dataDir)).toBe(false);
    expect(await node.stop('SIGINT')).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses a second node on the same data dir with one line naming --data-dir', async () => {
    const dataDir = dir();
    const first = await startNodeProcess(['--role', 'validator', '--data-dir', dataDir, '--bind', '127.0.0.1:0']);
    const second = await run(SVC_NODE, [
      'start',
      '--data-dir',
      dataDir,
      '--bind',
      '127.0.0.1:0',
      '--p2p-host',
      '127.0.0.1',
      '--p2p-port',
      '0',
      '--log-level',
      'silent',
    ]);
    expect(second.code).not.toBe(0);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toMatch(/--data-dir .*in use by another svc-node/);
    expect(await first.stop()).toBe(0);
  });

  it('refuses a bind address it cannot open, naming --bind, and leaves no new data dir behind', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    const dataDir = join(dir(), 'new-data');
    try {
      const result = await run(SVC_NODE, [
        'start',
        '--data-dir',
        dataDir,
        '--bind',
        `127.0.0.1:${port}`,
        '--p2p-host',
        '127.0.0.1',
        '--p2p-port',
        '0',
        '--log-level',
        'silent',
      ]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(new RegExp(`--bind 127.0.0.1:${port}: cannot listen \\(EADDRINUSE\\)`));
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('refuses a p2p port it cannot open, naming --p2p-port, and leaves nothing running', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await run(SVC_NODE, [
        'start',
        '--data-dir',
        dir(),
        '--bind',
        '127.0.0.1:0',
        '--p2p-host',
        '127.0.0.1',
        '--p2p-port',
        String(port),
        '--log-level',
        'silent',
      ]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(new RegExp(`--p2p-port ${port}: cannot listen on 127.0.0.1 \\(the port is in use`));
    } finally {
      blocker.close();
    }
  });

  it.each([
    [['--role', 'miner'], /--role: unknown value "miner" \(expected validator, compute, full\)/],
    [['--bind', 'localhost'], /--bind: expected host:port/],
    [['--bind', '127.0.0.1:99999'], /--bind: expected host:port/],
    [['--p2p-port', '70000'], /--p2p-port: expected an integer from 0 to 65535/],
    [['--p2p-port', 'abc'], /--p2p-port: expected an integer/],
    // Numbers are read as the text typed: what a float parser would accept is refused.
    [['--p2p-port', '1e3'], /--p2p-port: expected an integer from 0 to 65535, got "1e3"/],
    [['--rpc-max-body', '0x100000'], /--rpc-max-body: expected an integer from 1024 to \d+, got "0x100000"/],
    [['--rpc-max-batch', '1.5'], /--rpc-max-batch: expected an integer from 1 to 10000, got "1.5"/],
    [['--history-blocks', '10e3'], /--history-blocks: expected an integer from 1 to \d+, got "10e3"/],
    [['--block-time', '1e3'], /--block-time: expected an integer from 10 to \d+, got "1e3"/],
    [['--rate-limit', '-1'], /--rate-limit: expected an integer from 0 to \d+, got "-1"/],
    [['--rate-limit-window', '60.0'], /--rate-limit-window: expected an integer from 1 to 86400, got "60.0"/],
    [['--rate-limit-burst', '1e2'], /--rate-limit-burst: expected an integer from 0 to \d+, got "1e2"/],
    [['--faucet-cooldown', '6e1'], /--faucet-cooldown: expected an integer from 0 to \d+, got "6e1"/],
    [['--block-time', '5'], /--block-time: expected an integer from 10/],
    [['--receipt-archive', 'maybe'], /--receipt-archive: expected true or false/],
    [['--storage', 'leveldb'], /--storage: unknown value "leveldb"/],
    [['--bootstrap-peers', '/ip4/1.2.3.4/tcp/1'], /--bootstrap-peers: "\/ip4\/1.2.3.4\/tcp\/1" is not a multiaddr/],
    [
      ['--bootstrap-peers', '/ip4/300.2.3.4/tcp/1/p2p/12D3KooWNTF2FeepLMsAdNxVonZGkHq5F8kWSW5EncP8LfNKskWW'],
      /invalid IPv4/,
    ],
    [
      ['--bootstrap-peers', `/ip4/1.2.3.4/tcp/1/p2p/${'1'.repeat(43)}`],
      /--bootstrap-peers: ".*" does not end in a valid peer id/,
    ],
    [['--log-format', 'xml'], /--log-format: unknown value "xml"/],
    [['--network', 'testnet'], /needs --genesis/],
    [['--role', 'validator', '--role', 'full'], /--role: given more than once/],
    [['--no-such-flag', '1'], /Unknown option `--noSuchFlag`|Unknown option/],
    [['--config', '/nonexistent/svc.json'], /--config: cannot read \/nonexistent\/svc.json \(ENOENT\)/],
  ])('bad option %j exits 2 with one line naming it', async (args, message) => {
    const result = await run(SVC_NODE, ['start', '--data-dir', dir(), ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).not.toContain('rpc listening');
  });

  it('prune reads --history-blocks as the text typed', async () => {
    for (const bad of ['1e3', '0', '-5', '2.0']) {
      const result = await run(SVC_NODE, ['prune', '--data-dir', dir(), '--history-blocks', bad]);
      expect({ bad, code: result.code, stderr: result.stderr.trim() }).toEqual({
        bad,
        code: 2,
        stderr: `svc-node: --history-blocks: expected a whole number of at least 1, got "${bad}"`,
      });
    }
  });

  it('reads a JSON config file with comments; flags win over it; a bad key is named', async () => {
    const d = dir();
    const good = join(d, 'good.json');
    writeFileSync(
      good,
      `{\n  // a validator on a free port\n  "role": "validator",\n  "rpc": { "bind": "127.0.0.1:1" },\n  "validator": { "blockTime": 100 },\n}\n`,
    );
    const node = await startNodeProcess(['--config', good, '--data-dir', join(d, 'data'), '--bind', '127.0.0.1:0']);
    await waitFor(
      () => height(node.url),
      (h) => h >= 1,
      10_000,
      'a block',
    );
    expect(await node.stop()).toBe(0);

    const bad = join(d, 'bad.json');
    writeFileSync(bad, '{ "rpc": { "maxBatch": 0 } }');
    const badResult = await run(SVC_NODE, ['start', '--config', bad, '--data-dir', join(d, 'data2')]);
    expect(badResult.code).toBe(2);
    expect(badResult.stderr).toContain('config key "rpc.maxBatch": must be >= 1');

    const badPeer = join(d, 'bad-peer.json');
    writeFileSync(
      badPeer,
      JSON.stringify({ p2p: { bootstrapPeers: [`/ip4/127.0.0.1/tcp/4001/p2p/${'1'.repeat(43)}`] } }),
    );
    const badPeerResult = await run(SVC_NODE, ['start', '--config', badPeer, '--data-dir', join(d, 'data3')]);
    expect(badPeerResult.code).toBe(2);
    expect(badPeerResult.stderr).toContain('p2p.bootstrapPeers[0]: "/ip4/127.0.0.1/tcp/4001/p2p/111');
    expect(badPeerResult.stderr).toContain('does not end in a valid peer id');

    const typo = join(d, 'typo.json');
    writeFileSync(typo, '{ "rpc": { "bnd": "127.0.0.1:0" } }');
    expect((await run(SVC_NODE, ['start', '--config', typo])).stderr).toContain('unknown config key "rpc.bnd"');

    const broken = join(d, 'broken.json');
    writeFileSync(broken, '{ "role": "validator" ');
    expect((await run(SVC_NODE, ['start', '--config', broken])).stderr).toMatch(/--config: .*broken.json:1:\d+: /);
  });
});

describe('svc-node other commands', () => {
  it('keys prints a peer id and operator address that stay the same for a data dir', async () => {
    const d = dir();
    const first = await run(SVC_NODE, ['keys', '--data-dir', d, '--json']);
    const second = await run(SVC_NODE, ['keys', '--data-dir', d, '--json']);
    expect(first.code).toBe(0);
    const keys = JSON.parse(first.stdout) as { peerId: string; operator: string };
    expect(keys.peerId).toMatch(/^12D3KooW/);
    expect(keys.operator).toMatch(/^svc1[0-9a-f]{40}$/);
    expect(JSON.parse(second.stdout)).toEqual(keys);
  });

  it('version, plugins, and an unknown command', async () => {
    expect((await run(SVC_NODE, ['version'])).stdout).toMatch(/^svc-node \d+\.\d+\.\d+/);
    const plugins = await run(SVC_NODE, ['plugins', '--json']);
    const list = JSON.parse(plugins.stdout) as { name: string; methods: string[]; routes: string[] }[];
    expect(list.find((p) => p.name === 'chain')?.methods).toContain('svc_blockNumber');
    expect(list.find((p) => p.name === 'metrics')?.routes).toEqual(['GET /metrics']);
    // Each storage namespace with its key -> value layout, as the plugin declares it.
    expect(list.find((p) => p.name === 'faucet')).toMatchObject({
      namespaces: [{ name: 'faucet.cooldowns', layout: expect.stringContaining(' -> ') }],
    });
    const human = await run(SVC_NODE, ['plugins']);
    expect(human.stdout).toMatch(/^ {4}chain\.blocks {2}u64 height -> CBOR block$/m);
    expect(human.stdout).toMatch(/^compute .*\n {2}enabled: always \(switched on by registering\)$/m);
    const unknown = await run(SVC_NODE, ['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });
});

describe('svc client CLI', () => {
  it('reads the block number and calls any method against a running node', async () => {
    const node = await startNodeProcess([
      '--role',
      'validator',
      '--data-dir',
      dir(),
      '--bind',
      '127.0.0.1:0',
      '--block-time',
      '100',
    ]);
    try {
      const bn = await run(SVC, ['block-number', '--url', node.url]);
      expect(bn.code).toBe(0);
      expect(Number(bn.stdout.trim())).toBeGreaterThanOrEqual(0);
      const viaEnv = await run(SVC, ['rpc', 'svc_getBlockByNumber', '[0]', '--json'], { SVC_RPC_URL: node.url });
      expect(JSON.parse(viaEnv.stdout)).toMatchObject({ height: 0 });
      const missing = await run(SVC, ['rpc', 'svc_getBlockByNumber', '[999999]', '--url', node.url]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('not_found (-32030)');
    } finally {
      await node.stop();
    }
  });
});
