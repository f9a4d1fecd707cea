import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authProtocols, newNonce, RpcError, SvcClient, SvcWsClient, WS_PROTOCOL } from '../../sdk/index.js';
import { startTestNode, tempDir, type TestNode } from '../helpers/test-node.js';
import { WsClient } from '../helpers/ws-client.js';

const TOKEN = 'test-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcdef';
let node: TestNode;

beforeAll(async () => {
  const dir = tempDir();
  const tokenFile = join(dir, 'tokens');
  writeFileSync(tokenFile, `# operators\n${TOKEN}\n${OTHER}\n`);
  node = await startTestNode({ storage: 'memory', guardrails: true, rateLimit: { limit: 0 }, auth: { tokenFile } });
});
afterAll(async () => {
  await node.stop();
});

const call = '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber"}';

async function post(
  headers: Record<string, string>,
  body = call,
): Promise<{
  status: number;
  body: { error?: { code: number; message: string; data?: { reason: string } }; result?: unknown } | unknown[];
}> {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as never };
}

const good = (token = TOKEN, nonce = newNonce()) => ({ authorization: `Bearer ${token}`, 'x-svc-nonce': nonce });

describe('auth plugin over HTTP', () => {
  it('serves a request with a good token and a fresh nonce', async () => {
    const res = await post(good());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: expect.any(Number) });
  });

  // Headers are made when each case runs: a nonce's time must be judged against the clock then, not
  // when the file was loaded (a busy machine can take seconds in between).
  it.each([
    ['no token', () => ({ 'x-svc-nonce': newNonce() }), 'unauthorized', -32001],
    [
      'a wrong token',
      () => ({ authorization: 'Bearer wrong-token-0123456789', 'x-svc-nonce': newNonce() }),
      'unauthorized',
      -32001,
    ],
    [
      'a non-bearer scheme',
      () => ({ authorization: `Basic ${TOKEN}`, 'x-svc-nonce': newNonce() }),
      'unauthorized',
      -32001,
    ],
    ['no nonce', () => ({ authorization: `Bearer ${TOKEN}` }), 'nonce_reused', -32002],
    [
      'a malformed nonce',
      () => ({ authorization: `Bearer ${TOKEN}`, 'x-svc-nonce': 'not-a-nonce' }),
      'nonce_reused',
      -32002,
    ],
    [
      'a nonce with a short random part',
      () => ({ authorization: `Bearer ${TOKEN}`, 'x-svc-nonce': `${Date.now()}.abc` }),
      'nonce_reused',
      -32002,
    ],
    [
      'a stale nonce',
      () => ({ authorization: `Bearer ${TOKEN}`, 'x-svc-nonce': `${Date.now() - 301_000}.abcdefghij` }),
      'nonce_reused',
      -32002,
    ],
    [
      'a nonce from the future',
      () => ({ authorization: `Bearer ${TOKEN}`, 'x-svc-nonce': `${Date.now() + 301_000}.abcdefghij` }),
      'nonce_reused',
      -32002,
    ],
  ] as const)('refuses %s with HTTP 401', async (_what, headers, message, code) => {
    const res = await post(headers() as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code, message, data: { reason: expect.any(String) } },
    });
  });

  it('refuses a reused nonce with the same token, but accepts it with another token', async () => {
    const nonce = newNonce();
    expect((await post(good(TOKEN, nonce))).status).toBe(200);
    const again = await post(good(TOKEN, nonce));
    expect(again.status).toBe(401);
    expect(again.body).toMatchObject({ error: { message: 'nonce_reused' } });
    expect((await post(good(OTHER, nonce))).status).toBe(200);
  });

  it('refuses a batch with bad headers as a whole, running none of its calls', async () => {
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'svc_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'faucet_request', params: [`svc1${'1'.repeat(40)}`] },
    ]);
    const res = await post({ authorization: 'Bearer nope-nope-nope-nope' }, batch);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { message: 'unauthorized' } });
    const status = await post(
      good(),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'faucet_status', params: [`svc1${'1'.repeat(40)}`] }),
    );
    expect(status.body).toMatchObject({ result: { eligible: true } });
  });

  it('keeps /health open and asks /metrics for the token (no nonce)', async () => {
    expect((await fetch(`${node.url}/health`)).status).toBe(200);
    const noToken = await fetch(`${node.url}/metrics`);
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toMatchObject({ error: { message: 'unauthorized' } });
    const withToken = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(withToken.status).toBe(200);
    expect(await withToken.text()).toContain('svc_rpc_calls_total');
  });

  it('the SDK sends the token and a fresh nonce on every request and reports 401 as RpcError', async () => {
    const client = new SvcClient({ url: node.url, token: TOKEN });
    for (let i = 0; i < 5; i++) expect(await client.blockNumber()).toEqual(expect.any(Number));
    const error = await new SvcClient({ url: node.url, token: 'wrong-token-0123456789' })
      .blockNumber()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ message: 'unauthorized', code: -32001, httpStatus: 401 });
  });

  it('never writes a token to the logs', async () => {
    await post({ authorization: `Bearer ${TOKEN}` });
    await post({ authorization: 'Bearer leaked-looking-token-000000', 'x-svc-nonce': newNonce() });
    await post(good());
    const logged = node.logs.text();
    expect(logged.length).toBeGreaterThan(0);
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain(OTHER);
    expect(logged).not.toContain('leaked-looking-token');
  });
});

describe('auth plugin over WebSocket', () => {
  it('accepts a handshake with token and nonce, then serves messages', async () => {
    const ws = await WsClient.connect(node.wsUrl, good());
    expect(await ws.request(call)).toMatchObject({ result: expect.any(Number) });
    expect(await ws.request(call)).toMatchObject({ result: expect.any(Number) });
    await ws.close();
  });

  it.each([
    ['no token', { 'x-svc-nonce': newNonce() }],
    ['a wrong token', { authorization: 'Bearer wrong-token-0123456789', 'x-svc-nonce': newNonce() }],
    ['no nonce', { authorization: `Bearer ${TOKEN}` }],
  ])('refuses a handshake with %s with HTTP 401', async (_what, headers) => {
    const status = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(node.wsUrl, { headers: headers as Record<string, string> });
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.once('open', () => reject(new Error('handshake should be refused')));
      socket.once('error', () => undefined);
    });
    expect(status).toBe(401);
  });

  /** The HTTP status a handshake offering these subprotocols gets, and the subprotocol the node selected. */
  const handshake = (protocols: string[]): Promise<{ status: number; protocol: string }> =>
    new Promise((resolve) => {
      const socket = new WebSocket(node.wsUrl, protocols);
      socket.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, protocol: '' }));
      socket.once('open', () => {
        resolve({ status: 101, protocol: socket.protocol });
        socket.close();
      });
      socket.once('error', () => undefined);
    });

  it('takes the token and nonce a browser offers as subprotocols (it cannot set headers), selecting only its own', async () => {
    const protocols = authProtocols(TOKEN);
    expect(protocols[0]).toBe(WS_PROTOCOL);
    expect(await handshake(protocols)).toEqual({ status: 101, protocol: WS_PROTOCOL });
    // The same nonce again, a wrong token, no nonce, a token that is no base64url: refused like headers.
    expect((await handshake(protocols)).status).toBe(401);
    expect((await handshake(authProtocols('wrong-token-0123456789'))).status).toBe(401);
    expect((await handshake(authProtocols(TOKEN).slice(0, 2))).status).toBe(401);
    expect((await handshake([WS_PROTOCOL, 'svc.bearer.%%%', authProtocols(TOKEN)[2]!])).status).toBe(401);
  });

  it("connects the SDK through a WebSocket that takes no headers (a browser's), its token sent as subprotocols", async () => {
    // What a browser's constructor takes: a URL and subprotocols, nothing else.
    // biome-ignore lint/complexity/useArrowFunction: a WebSocket class is called with `new`, which an arrow function refuses.
    const BrowserLike = function (url: string, protocols?: unknown) {
      if (protocols !== undefined && !Array.isArray(protocols))
        throw new TypeError('a browser WebSocket takes subprotocols, not options');
      return new WebSocket(url, protocols as string[] | undefined);
    };
    const global = globalThis as { WebSocket?: unknown };
    const before = global.WebSocket;
    global.WebSocket = BrowserLike;
    try {
      const client = new SvcWsClient({ url: node.wsUrl, token: TOKEN, reconnect: false });
      expect(await client.blockNumber()).toEqual(expect.any(Number));
      client.close();
    } finally {
      global.WebSocket = before;
    }
  });

  it('refuses a handshake that reuses a nonce', async () => {
    const headers = good();
    const ws = await WsClient.connect(node.wsUrl, headers);
    await ws.close();
    await expect(WsClient.connect(node.wsUrl, headers)).rejects.toThrow('HTTP 401');
  });
});
