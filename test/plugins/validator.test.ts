import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSignedHeader, type SignedBlockHeader } from '../../sdk/block.js';
import { devnetKey } from '../../sdk/keys.js';
import { toHex } from '../../sdk/bytes.js';
import { genesisHash } from '../../chain/genesis.js';
import { devnetGenesis } from '../../node/genesis.js';
import type { Block } from '../../chain/schemas.js';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { rpc, startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { captureLog } from '../helpers/log-capture.js';
import { catalog } from '../../node/catalog.js';
import { resolveConfig } from '../../node/config.js';
import { SvcNode } from '../../node/node.js';
import { definePlugin, type AnyPlugin } from '../../kernel/plugin.js';

let running: TestNode | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const head = async (url: string): Promise<number> => (await rpc<number>(url, 'svc_blockNumber')).body.result!;
const block = async (url: string, height: number): Promise<Block> =>
  (await rpc<Block>(url, 'svc_getBlockByNumber', [height])).body.result!;

describe('validator plugin', () => {
  it('produces signed, linked blocks at the block time from the devnet genesis', async () => {
    running = await startTestNode({ validator: { blockTime: 50 } }, [], { logLevel: 'debug' });
    await waitFor(
      () => head(running!.url),
      (h) => h >= 5,
      15_000,
      'height 5',
    );
    const genesis = await block(running.url, 0);
    expect(genesis.hash).toBe(genesisHash(devnetGenesis()));
    let parent = genesis;
    for (let height = 1; height <= 5; height++) {
      const b = await block(running.url, height);
      expect(b.parentHash).toBe(parent.hash);
      expect(checkSignedHeader(b as unknown as SignedBlockHeader)).toBeUndefined();
      expect(b.proposer).toBe(devnetKey('validator', 0).address);
      if (height > 1) expect(b.timestamp - parent.timestamp).toBeGreaterThanOrEqual(50);
      expect((await rpc<Block>(running.url, 'svc_getBlockByHash', [b.hash])).body.result).toEqual(b);
      parent = b;
    }
    // One debug line a block: height, transactions, hash prefix and time taken (info has the summary).
    const line = running.logs.lines.find((l) => l.height === 3 && String(l.msg).startsWith('produced block 3:'));
    expect(line).toMatchObject({ level: 20, transactions: 0, hash: (await block(running.url, 3)).hash });
    expect(line!.msg).toMatch(/^produced block 3: 0 tx, 0x[0-9a-f]{8}…, \d+(\.\d)? ms$/);
    expect((await rpc(running.url, 'svc_getBlockByNumber', ['latest'])).body.result).toMatchObject({
      height: expect.any(Number),
    });
    expect((await rpc(running.url, 'svc_getBlockByNumber', [10_000_000])).body.error).toMatchObject({
      code: -32030,
      message: 'not_found',
    });
    expect((await rpc(running.url, 'svc_getBlockByHash', [`0x${'ab'.repeat(32)}`])).body.error).toMatchObject({
      code: -32030,
      message: 'not_found',
    });
    expect((await rpc(running.url, 'svc_getBlockByNumber', [-1])).body.error).toMatchObject({
      code: -32602,
      message: 'invalid_params',
      data: { field: 'blockNumber' },
    });
  });

  it('every devnet node computes the same genesis hash', async () => {
    running = await startTestNode({ storage: 'memory' });
    const other = await startTestNode({ storage: 'memory', role: 'full' });
    try {
      expect((await block(other.url, 0)).hash).toBe((await block(running.url, 0)).hash);
    } finally {
      await other.stop();
    }
  });

  it('a node restarted from its data dir continues the same chain', async () => {
    const dataDir = tempDir();
    running = await startTestNode({ dataDir });
    await waitFor(
      () => head(running!.url),
      (h) => h >= 3,
      15_000,
      'height 3',
    );
    await running.stop();
    const stoppedAt = running.node.service<{ head: Block }>('chain');
    running = await startTestNode({ dataDir });
    const resumed = await block(running.url, stoppedAt.head.height);
    expect(resumed.hash).toBe(stoppedAt.head.hash);
    await waitFor(
      () => head(running!.url),
      (h) => h > stoppedAt.head.height,
      15_000,
      'a new block',
    );
    expect((await block(running.url, stoppedAt.head.height + 1)).parentHash).toBe(stoppedAt.head.hash);
  });

  it('refuses a data dir that holds another chain', async () => {
    const dataDir = tempDir();
    running = await startTestNode({ dataDir });
    await running.stop();
    running = undefined;
    const other = devnetKey('validator', 7);
    const genesisFile = join(dataDir, 'other-genesis.json');
    writeFileSync(
      genesisFile,
      JSON.stringify({
        chainId: 'svc-other-1',
        timestamp: 0,
        validatorKey: toHex(other.publicKey),
        validator: other.address,
      }),
    );
    await expect(startTestNode({ dataDir, network: 'othernet', genesis: genesisFile, role: 'full' })).rejects.toThrow(
      /holds chain svc-devnet-1 .* not svc-other-1/,
    );
  });

  it('refuses to sign when another node signs with its key: a second node started with the genesis key follows the real chain, never its own', async () => {
    const first = await startTestNode({ validator: { blockTime: 100 } });
    try {
      await waitFor(
        () => first.node.service<Chain>('chain').head.height,
        (h) => h >= 3,
        10_000,
        'the first validator to produce',
      );
      // Its key from a file: the built-in devnet validator's peer identity stays the first node's.
      const keyFile = join(tempDir(), 'validator.key');
      writeFileSync(keyFile, toHex(devnetKey('validator', 0).secretKey));
      running = await startTestNode({
        validator: { blockTime: 100, keyFile },
        p2p: {
          host: '127.0.0.1',
          port: 0,
          bootstrapPeers: [first.node.service<P2pService>('p2p').listenAddresses[0]!],
        },
      });
      const second = running;
      const verbose = await waitFor(
        async () =>
          (await (await fetch(`${second.url}/health?verbose`)).json()) as { mode?: string; produced?: number },
        (h) => h.mode === 'refused',
        20_000,
        'the second validator to refuse',
      );
      expect(verbose.produced).toBe(0);
      expect((await fetch(`${second.url}/health`)).status).toBe(503);
      // It follows the first's chain: its blocks are the first's.
      const height = await waitFor(
        () => second.node.service<Chain>('chain').head.height,
        (h) => h >= 5,
        10_000,
        'the second to follow',
      );
      const [mine, theirs] = await Promise.all([
        rpc(second.url, 'svc_getBlockByNumber', [height]),
        rpc(first.url, 'svc_getBlockByNumber', [height]),
      ]);
      expect((mine.body.result as Block).hash).toBe((theirs.body.result as Block).hash);
    } finally {
      await first.stop();
    }
  });

  it('does not produce with a key outside the validator set: it follows, and says so', async () => {
    const dir = tempDir();
    const keyFile = join(dir, 'validator.key');
    writeFileSync(keyFile, toHex(devnetKey('account', 1).secretKey));
    running = await startTestNode({ validator: { keyFile } });
    const verbose = await waitFor(
      async () =>
        (await (await fetch(`${running!.url}/health?verbose`)).json()) as { mode?: string; produced?: number },
      (h) => h.mode !== undefined,
      10_000,
      'the validator health',
    );
    expect(verbose).toMatchObject({ mode: 'following', produced: 0 });
    expect(running.node.service<Chain>('chain').head.height).toBe(0);
  });
});

describe('/health', () => {
  it('is 503 syncing on a full node that has no peers to sync from', async () => {
    running = await startTestNode({ storage: 'memory', role: 'full' });
    const res = await fetch(`${running.url}/health`);
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('syncing');
  });

  it('is 503 stalled on a validator whose last block is older than 5 block times, and healthy again once blocks come', async () => {
    let broken = false;
    // A plugin whose end-of-block step fails makes every block fail: production stalls.
    const breaker = definePlugin({
      name: 'breaker',
      version: '1.0.0',
      description: 'fails every block while told to',
      endBlock: () => {
        if (broken) throw new Error('broken on purpose');
      },
    }) as AnyPlugin;
    running = await startTestNode({ storage: 'memory', validator: { blockTime: 20 } }, [breaker]);
    const health = async (): Promise<string> => (await fetch(`${running!.url}/health`)).text();
    await waitFor(health, (text) => text === 'healthy');
    broken = true;
    await waitFor(health, (text) => text === 'stalled', 10_000, 'the validator to count as stalled');
    const verbose = (await (await fetch(`${running.url}/health?verbose`)).json()) as {
      status: string;
      lastBlockAgeMs: number;
      blockTime: number;
    };
    expect(verbose).toMatchObject({ status: 'stalled', blockTime: 20 });
    expect(verbose.lastBlockAgeMs).toBeGreaterThan(100);
    broken = false;
    await waitFor(health, (text) => text === 'healthy', 10_000, 'production to resume');
  });

  it('is 503 starting while plugins start, then 200 healthy, and reports stopping once shutdown begins', async () => {
    let node!: SvcNode;
    let seenDuringStart: [number, string] | undefined;
    const probe = definePlugin({
      name: 'probe',
      version: '1.0.0',
      description: 'reads /health from inside its own start hook',
      start: async () => {
        const res = await fetch(`${node.rpcUrl}/health`);
        seenDuringStart = [res.status, await res.text()];
      },
    }) as AnyPlugin;
    const logs = captureLog();
    node = await SvcNode.create({
      config: resolveConfig({
        role: 'validator',
        storage: 'memory',
        dataDir: tempDir(),
        rpc: { bind: '127.0.0.1:0' },
        p2p: { host: '127.0.0.1', port: 0 },
      }),
      catalog,
      log: logs.log,
      plugins: [probe],
    });
    await node.start();
    expect(seenDuringStart).toEqual([503, 'starting']);
    const res = await fetch(`${node.rpcUrl}/health`);
    expect([res.status, await res.text()]).toEqual([200, 'healthy']);
    const stopping = node.stop();
    expect(node.notReadyReason()).toBe('stopping');
    await stopping;
  });
});
