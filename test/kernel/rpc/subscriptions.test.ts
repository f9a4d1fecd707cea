import { afterEach, describe, expect, it } from 'vitest';
import { devnetKey, SvcClient, UNIT } from '../../../sdk/index.js';
import type { Chain } from '../../../chain/chain.js';
import { definePlugin, type AnyPlugin } from '../../../kernel/plugin.js';
import { firehosePlugin } from '../../fixtures/firehose-plugin.js';
import { rpc, startTestNode, waitFor, type TestNode } from '../../helpers/test-node.js';
import { WsClient } from '../../helpers/ws-client.js';

let node: TestNode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

interface Notification {
  method: string;
  params: { subscription: string; result: { height: number } & Record<string, unknown> };
}

const request = (id: number, method: string, params: unknown[]) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const notificationsOf = (ws: WsClient, id: string): Notification[] =>
  (ws.messages as Notification[]).filter((m) => m.method === 'svc_subscription' && m.params.subscription === id);

describe('WebSocket subscriptions', () => {
  it('subscribe returns an id; unsubscribe answers true, then false; unknown kinds and HTTP are refused', async () => {
    node = await startTestNode({ storage: 'memory' });
    const ws = await WsClient.connect(node.wsUrl);
    const reply = (await ws.request(request(1, 'svc_subscribe', ['newHeads']))) as { result: string };
    expect(reply.result).toMatch(/^0x[0-9a-f]{32}$/);
    expect(await ws.request(request(2, 'svc_unsubscribe', [reply.result]))).toMatchObject({ result: true });
    expect(await ws.request(request(3, 'svc_unsubscribe', [reply.result]))).toMatchObject({ result: false });
    expect(await ws.request(request(4, 'svc_subscribe', ['nope']))).toMatchObject({
      error: { code: -32602, message: 'invalid_params', data: { field: 'kind' } },
    });
    expect(await ws.request(request(5, 'svc_subscribe', ['newHeads', { fromBlock: -1 }]))).toMatchObject({
      error: { message: 'invalid_params', data: { field: 'options' } },
    });
    await ws.close();
    expect((await rpc(node.url, 'svc_subscribe', ['newHeads'])).body.error).toMatchObject({
      code: -32006,
      message: 'subscriptions_need_websocket',
    });
  });

  it('delivers new heads in order with increasing height, after the subscribe reply', async () => {
    node = await startTestNode({ storage: 'memory', validator: { blockTime: 30 } });
    const ws = await WsClient.connect(node.wsUrl);
    const { result: id } = (await ws.request(request(1, 'svc_subscribe', ['newHeads']))) as { result: string };
    expect(ws.messages[0]).toMatchObject({ id: 1 });
    await waitFor(
      () => notificationsOf(ws, id).length,
      (n) => n >= 5,
      10_000,
      '5 heads',
    );
    const heights = notificationsOf(ws, id).map((n) => n.params.result.height);
    for (let i = 1; i < heights.length; i++) expect(heights[i]).toBe(heights[i - 1]! + 1);
    expect(notificationsOf(ws, id)[0]!.params.result).toMatchObject({
      hash: expect.stringMatching(/^0x/),
      parentHash: expect.any(String),
      stateRoot: expect.any(String),
      transactionCount: 0,
    });
    await ws.close();
  });

  it('replays heads from fromBlock and continues live with no gap and no repeat while the chain advances', async () => {
    node = await startTestNode({ storage: 'memory', validator: { blockTime: 10 } });
    await waitFor(
      async () => (await rpc<number>(node!.url, 'svc_blockNumber')).body.result!,
      (h) => h >= 40,
      15_000,
      'height 40',
    );
    const ws = await WsClient.connect(node.wsUrl);
    const { result: id } = (await ws.request(request(1, 'svc_subscribe', ['newHeads', { fromBlock: 1 }]))) as {
      result: string;
    };
    const target = (await rpc<number>(node.url, 'svc_blockNumber')).body.result! + 20;
    await waitFor(
      () => notificationsOf(ws, id).at(-1)?.params.result.height ?? 0,
      (h) => h >= target,
      15_000,
      `head ${target}`,
    );
    const heights = notificationsOf(ws, id).map((n) => n.params.result.height);
    expect(heights).toEqual(Array.from({ length: heights.length }, (_, i) => i + 1));
    await ws.close();
  });

  it('sends pending transaction hashes, and receipts filtered by address', async () => {
    node = await startTestNode({ storage: 'memory', validator: { blockTime: 50 } });
    const ws = await WsClient.connect(node.wsUrl);
    const { result: pending } = (await ws.request(request(1, 'svc_subscribe', ['pendingTransactions']))) as {
      result: string;
    };
    const { result: mine } = (await ws.request(
      request(2, 'svc_subscribe', ['receipts', { address: devnetKey('account', 5).address }]),
    )) as { result: string };
    const client = new SvcClient(node.url);
    const other = await client.transfer(devnetKey('account', 1), devnetKey('account', 2).address, 'OMC', UNIT);
    const tx = await client.transfer(devnetKey('account', 3), devnetKey('account', 5).address, 'OMC', UNIT);
    await waitFor(
      () => notificationsOf(ws, mine).length,
      (n) => n >= 1,
      10_000,
      'a receipt',
    );
    expect(notificationsOf(ws, pending).map((n) => n.params.result)).toEqual(
      expect.arrayContaining([other.hash, tx.hash]),
    );
    await client.waitForTransaction(other.hash, { pollMs: 20 });
    expect(
      notificationsOf(ws, mine).map((n) => (n.params.result as unknown as { transactionHash: string }).transactionHash),
    ).toEqual([tx.hash]);
    await ws.close();
  });

  it('disconnects a subscriber that reads too slowly while others keep receiving', async () => {
    node = await startTestNode(
      { storage: 'memory', validator: { blockTime: 30 }, rpc: { wsMaxBufferedBytes: 65536 } },
      [firehosePlugin as AnyPlugin],
    );
    const healthy = await WsClient.connect(node.wsUrl);
    const { result: heads } = (await healthy.request(request(1, 'svc_subscribe', ['newHeads']))) as { result: string };
    const slow = await WsClient.connect(node.wsUrl);
    await slow.request(request(1, 'svc_subscribe', ['test_firehose']));
    (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    await waitFor(
      () => node!.node.webSocketConnections,
      (n) => n === 1,
      20_000,
      'the slow client dropped',
    );
    const before = notificationsOf(healthy, heads).length;
    await waitFor(
      () => notificationsOf(healthy, heads).length,
      (n) => n >= before + 3,
      10_000,
      'heads still flowing',
    );
    expect(node.logs.text()).toContain('reads too slowly');
    slow.socket.terminate();
    await healthy.close();
  });

  it('caps the subscriptions of one connection', async () => {
    node = await startTestNode({ storage: 'memory', rpc: { maxSubscriptionsPerConnection: 2 } });
    const ws = await WsClient.connect(node.wsUrl);
    expect(await ws.request(request(1, 'svc_subscribe', ['newHeads']))).toMatchObject({ result: expect.any(String) });
    const second = (await ws.request(request(2, 'svc_subscribe', ['syncStatus']))) as { result: string };
    expect(await ws.request(request(3, 'svc_subscribe', ['pendingTransactions']))).toMatchObject({
      error: { message: 'invalid_params', data: { reason: expect.stringContaining('at most 2') } },
    });
    expect(await ws.request(request(4, 'svc_unsubscribe', [second.result]))).toMatchObject({ result: true });
    expect(await ws.request(request(5, 'svc_subscribe', ['pendingTransactions']))).toMatchObject({
      result: expect.any(String),
    });
    await ws.close();
  });

  it("subscriptions die with their connection: each one's stop runs and its event listeners hear nothing more", async () => {
    // A kind that counts its live subscriptions and the blocks its listener hears, in this test's own code.
    let live = 0;
    let heard = 0;
    const counted = definePlugin({
      name: 'counted-subscriptions',
      version: '1.0.0',
      description: 'test-only: counts its subscriptions',
      subscriptions: (kind) => [
        kind({
          kind: 'test_counted',
          summary: 'counts itself',
          start(_sink, _options, _service, events) {
            live++;
            events.on('chain:block', () => {
              heard++;
            });
            return () => live--;
          },
        }),
      ],
    });
    node = await startTestNode({ storage: 'memory', validator: { blockTime: 20 } }, [counted as AnyPlugin]);
    const ws = await WsClient.connect(node.wsUrl);
    await ws.request(request(1, 'svc_subscribe', ['test_counted']));
    await ws.request(request(2, 'svc_subscribe', ['test_counted']));
    expect(live).toBe(2);
    await waitFor(
      () => heard,
      (n) => n >= 2,
      5000,
      'blocks heard',
    );
    await ws.close();
    await waitFor(
      () => live,
      (n) => n === 0,
      5000,
      'both subscriptions stopped',
    );
    const heardWhenClosed = heard;
    const height = node.node.service<Chain>('chain').head.height;
    await waitFor(
      () => node!.node.service<Chain>('chain').head.height,
      (h) => h >= height + 3,
      5000,
      'three more blocks',
    );
    expect(heard).toBe(heardWhenClosed);
  });
});
