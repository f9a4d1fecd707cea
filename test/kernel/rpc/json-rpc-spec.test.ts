import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../../helpers/test-node.js';
import { WsClient } from '../../helpers/ws-client.js';
import { specExamplesPlugin } from '../../fixtures/spec-examples-plugin.js';
import type { AnyPlugin } from '../../../kernel/plugin.js';

/** Sends one HTTP body or WebSocket message; `body` is undefined when the node sends nothing back. */
interface Transport {
  readonly name: string;
  send(text: string): Promise<{ body: unknown }>;
}

let node: TestNode;
let ws: WsClient;

const http: Transport = {
  name: 'HTTP',
  async send(text) {
    const response = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    if (response.status === 204) return { body: undefined };
    expect(response.status).toBe(200);
    return { body: JSON.parse(await response.text()) };
  },
};

const websocket: Transport = {
  name: 'WebSocket',
  async send(text) {
    // A marker request after the message shows whether the message itself got a reply.
    // Replies leave in request order, so whatever arrives before the marker's reply answers `text`.
    const before = ws.messages.length;
    ws.socket.send(text);
    ws.socket.send('{"jsonrpc":"2.0","id":"marker","method":"svc_blockNumber"}');
    const isMarker = (m: unknown): boolean => (m as { id?: unknown }).id === 'marker';
    while (!ws.messages.slice(before).some(isMarker)) await ws.waitForCount(ws.messages.length + 1);
    const replies = ws.messages.slice(before);
    return { body: isMarker(replies[0]) ? undefined : replies[0] };
  },
};

beforeAll(async () => {
  node = await startTestNode({ storage: 'memory' }, [specExamplesPlugin as AnyPlugin]);
  ws = await WsClient.connect(node.wsUrl);
});

afterAll(async () => {
  await ws.close();
  await node.stop();
});

const invalidRequest = { code: -32600, message: 'Invalid Request' };

describe.each([http, websocket])('JSON-RPC 2.0 specification examples over $name', (transport) => {
  it('rpc call with positional parameters', async () => {
    expect(
      (await transport.send('{"jsonrpc": "2.0", "method": "test_subtract", "params": [42, 23], "id": 1}')).body,
    ).toEqual({ jsonrpc: '2.0', result: 19, id: 1 });
    expect(
      (await transport.send('{"jsonrpc": "2.0", "method": "test_subtract", "params": [23, 42], "id": 2}')).body,
    ).toEqual({ jsonrpc: '2.0', result: -19, id: 2 });
  });

  it('rpc call with named parameters is refused: params are positional', async () => {
    const { body } = await transport.send(
      '{"jsonrpc": "2.0", "method": "test_subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}',
    );
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: 'invalid_params', data: { field: 'params' } },
    });
  });

  it('a notification gets no response', async () => {
    expect(
      (await transport.send('{"jsonrpc": "2.0", "method": "test_update", "params": [1,2,3,4,5]}')).body,
    ).toBeUndefined();
    expect((await transport.send('{"jsonrpc": "2.0", "method": "foobar"}')).body).toBeUndefined();
  });

  it('rpc call of a non-existent method', async () => {
    const { body } = await transport.send('{"jsonrpc": "2.0", "method": "foobar", "id": "1"}');
    expect(body).toMatchObject({ jsonrpc: '2.0', id: '1', error: { code: -32601, message: 'Method not found' } });
  });

  it('rpc call with invalid JSON', async () => {
    const { body } = await transport.send('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]');
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('rpc call with an invalid Request object', async () => {
    const { body } = await transport.send('{"jsonrpc": "2.0", "method": 1, "params": "bar"}');
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: invalidRequest });
  });

  it('rpc call batch with invalid JSON', async () => {
    const { body } = await transport.send(
      '[{"jsonrpc": "2.0", "method": "test_sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]',
    );
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });

  it('rpc call with an empty array', async () => {
    const { body } = await transport.send('[]');
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: invalidRequest });
  });

  it('rpc call with an invalid batch (but not empty)', async () => {
    const { body } = await transport.send('[1]');
    expect(body).toEqual([{ jsonrpc: '2.0', id: null, error: expect.objectContaining(invalidRequest) }]);
  });

  it('rpc call with an invalid batch', async () => {
    const { body } = await transport.send('[1,2,3]');
    expect(body).toHaveLength(3);
    for (const reply of body as unknown[])
      expect(reply).toMatchObject({ jsonrpc: '2.0', id: null, error: invalidRequest });
  });

  it('rpc call batch', async () => {
    const { body } = await transport.send(`[
      {"jsonrpc": "2.0", "method": "test_sum", "params": [1,2,4], "id": "1"},
      {"jsonrpc": "2.0", "method": "test_notifyHello", "params": [7]},
      {"jsonrpc": "2.0", "method": "test_subtract", "params": [42,23], "id": "2"},
      {"foo": "boo"},
      {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
      {"jsonrpc": "2.0", "method": "test_getData", "id": "9"}
    ]`);
    const replies = body as { id: unknown }[];
    expect(replies).toHaveLength(5);
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect(byId.get('1')).toEqual({ jsonrpc: '2.0', result: 7, id: '1' });
    expect(byId.get('2')).toEqual({ jsonrpc: '2.0', result: 19, id: '2' });
    expect(byId.get(null)).toMatchObject({ error: invalidRequest });
    expect(byId.get('5')).toMatchObject({ error: { code: -32601, message: 'Method not found' } });
    expect(byId.get('9')).toEqual({ jsonrpc: '2.0', result: ['hello', 5], id: '9' });
  });

  it('a batch mixing immediate and later answers, errors and notifications replies in request order', async () => {
    const calls = [
      '{"jsonrpc":"2.0","method":"test_notifyHello","params":[1]}',
      '{"jsonrpc":"2.0","method":"test_sum","params":[1,2,3],"id":1}',
      '{"jsonrpc":"2.0","method":"test_later","params":[2],"id":2}',
      '{"jsonrpc":"2.0","method":"test_later","params":[3]}',
      '{"jsonrpc":"2.0","method":"nope","id":3}',
      ...Array.from(
        { length: 20 },
        (_, i) =>
          `{"jsonrpc":"2.0","method":"${i % 2 ? 'test_later' : 'test_sum'}","params":${i % 2 ? `[${i}]` : `[${i},0,0]`},"id":${10 + i}}`,
      ),
    ];
    const { body } = await transport.send(`[${calls.join(',')}]`);
    const replies = body as { id: number; result?: number; error?: { code: number } }[];
    expect(replies.map((r) => r.id)).toEqual([1, 2, 3, ...Array.from({ length: 20 }, (_, i) => 10 + i)]);
    expect(replies.slice(0, 3)).toEqual([
      { jsonrpc: '2.0', id: 1, result: 6 },
      { jsonrpc: '2.0', id: 2, result: 2 },
      expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -32601 }) }),
    ]);
    expect(replies.slice(3).map((r) => r.result)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('rpc call batch (all notifications) gets no response', async () => {
    const { body } = await transport.send(
      '[{"jsonrpc": "2.0", "method": "test_notifyHello", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "test_notifyHello", "params": [7]}]',
    );
    expect(body).toBeUndefined();
  });

  it('echoes string, number and null ids unchanged', async () => {
    for (const id of ['abc', 'x'.repeat(64), 0, 12345678901, -1, 1.5, null]) {
      const { body } = await transport.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'svc_blockNumber' }));
      expect(body).toMatchObject({ jsonrpc: '2.0', id });
    }
  });

  it('an omitted params means []', async () => {
    const { body } = await transport.send('{"jsonrpc":"2.0","id":7,"method":"svc_blockNumber"}');
    expect(body).toMatchObject({ id: 7, result: expect.any(Number) });
  });

  it('refuses a request whose jsonrpc is not "2.0"', async () => {
    const { body } = await transport.send('{"jsonrpc":"1.0","id":7,"method":"svc_blockNumber"}');
    expect(body).toMatchObject({ id: 7, error: invalidRequest });
  });

  it('refuses an object or array id', async () => {
    const { body } = await transport.send('{"jsonrpc":"2.0","id":{"a":1},"method":"svc_blockNumber"}');
    expect(body).toMatchObject({ id: null, error: invalidRequest });
  });

  it('a batch over the size limit is an Invalid Request', async () => {
    const calls = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'svc_blockNumber' }));
    const { body } = await transport.send(JSON.stringify(calls));
    expect(body).toMatchObject({
      id: null,
      error: { ...invalidRequest, data: { reason: expect.stringContaining('limit of 100') } },
    });
  });

  it('a batch at the size limit is served', async () => {
    const calls = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'svc_blockNumber' }));
    const { body } = await transport.send(JSON.stringify(calls));
    expect(body).toHaveLength(100);
  });

  it('wrong params count and types are invalid_params naming the field', async () => {
    const few = (await transport.send('{"jsonrpc":"2.0","id":1,"method":"test_subtract","params":[1]}')).body;
    expect(few).toMatchObject({
      error: {
        code: -32602,
        message: 'invalid_params',
        data: { field: 'params', reason: expect.stringContaining('takes 2') },
      },
    });
    const wrong = (await transport.send('{"jsonrpc":"2.0","id":1,"method":"test_subtract","params":[1,"x"]}')).body;
    expect(wrong).toMatchObject({ error: { code: -32602, message: 'invalid_params', data: { field: 'subtrahend' } } });
  });

  it('a failing handler is an Internal error that does not leak its details', async () => {
    const { body } = await transport.send('{"jsonrpc":"2.0","id":1,"method":"test_fail"}');
    expect(body).toMatchObject({ id: 1, error: { code: -32603, message: 'Internal error' } });
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(node.logs.text()).toContain('boom with a secret detail');
  });
});
