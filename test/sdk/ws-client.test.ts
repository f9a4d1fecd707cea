import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { devnetKey, RpcError, SvcWsClient, type WebSocketConstructor } from '../../sdk/index.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';

let node: TestNode | undefined;
let client: SvcWsClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await node?.stop();
  node = undefined;
});

const Ws = WebSocket as unknown as WebSocketConstructor;

describe('SDK WebSocket client', () => {
  it('offers the same typed methods as HTTP, with the same errors', async () => {
    node = await startTestNode({ storage: 'memory' });
    client = new SvcWsClient({ url: node.wsUrl, WebSocket: Ws });
    expect(await client.blockNumber()).toEqual(expect.any(Number));
    expect(await client.getBalance(devnetKey('account', 0).address)).toMatchObject({
      balanceOMC: '1000000.000000000000000000',
    });
    await expect(client.getBlockByNumber(10_000_000)).rejects.toMatchObject({ message: 'not_found', code: -32030 });
    await expect(client.getBalance('svc1bad')).rejects.toBeInstanceOf(RpcError);
  });

  it('delivers heads through an async iterator and through callbacks', async () => {
    node = await startTestNode({ storage: 'memory', validator: { blockTime: 20 } });
    client = new SvcWsClient({ url: node.wsUrl, WebSocket: Ws });
    const heads = await client.subscribeHeads();
    const viaCallback: number[] = [];
    const other = await client.subscribeHeads();
    other.on((head) => viaCallback.push(head.height));
    const seen: number[] = [];
    for await (const head of heads) {
      seen.push(head.height);
      if (seen.length === 5) break;
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 1]! + 1);
    await waitFor(
      () => viaCallback.length,
      (n) => n >= 3,
      5000,
      'callbacks',
    );
    await other.unsubscribe();
  });

  it('resumes across a server-side drop, seeing every height exactly once', async () => {
    const dataDir = tempDir();
    node = await startTestNode({ dataDir, validator: { blockTime: 30 } });
    const port = new URL(node.url).port;
    client = new SvcWsClient({ url: node.wsUrl, WebSocket: Ws });
    const heights: number[] = [];
    const heads = await client.subscribeHeads({ fromBlock: 1 });
    heads.on((head) => heights.push(head.height));
    await waitFor(
      () => heights.length,
      (n) => n >= 10,
      10_000,
      '10 heads',
    );
    await node.stop();
    const stoppedAt = heights.at(-1)!;
    node = await startTestNode({ dataDir, validator: { blockTime: 30 }, rpc: { bind: `127.0.0.1:${port}` } });
    await waitFor(
      () => heights.at(-1) ?? 0,
      (h) => h >= stoppedAt + 10,
      20_000,
      'heads after the restart',
    );
    expect(client.reconnects).toBeGreaterThanOrEqual(1);
    expect(heights).toEqual(Array.from({ length: heights.length }, (_, i) => i + 1));
  });
});
