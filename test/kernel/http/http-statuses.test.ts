import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRaw, startTestNode, type TestNode } from '../../helpers/test-node.js';
import { WsClient } from '../../helpers/ws-client.js';

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ storage: 'memory', rpc: { maxBody: 4096 } });
});

afterAll(async () => {
  await node.stop();
});

function chunked(url: string, chunks: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE'
        ? undefined
        : reject(error),
    );
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('HTTP surface', () => {
  it('POST / with application/json answers 200 with a JSON-RPC body', async () => {
    const res = await postRaw(node.url, '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber"}', {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
  });

  it('declares the length of a body with characters outside ASCII in bytes, and the client reads it whole', async () => {
    // The id comes back as given: three characters of two, three and four UTF-8 bytes each.
    const id = 'é€😀';
    const res = await postRaw(node.url, JSON.stringify({ jsonrpc: '2.0', id, method: 'svc_blockNumber' }));
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
    expect(JSON.parse(res.text)).toMatchObject({ id, result: expect.any(Number) });
  });

  it('POST / with another content type is 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const res = await postRaw(node.url, '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber"}', {
        'content-type': type,
      });
      expect(res.status, type).toBe(415);
      expect(JSON.parse(res.text)).toMatchObject({ error: { code: -32600 } });
    }
    const none = await fetch(node.url, { method: 'POST', body: new Uint8Array([1, 2]) });
    expect(none.status).toBe(415);
  });

  it('a body over the limit is 413, by Content-Length and when streamed', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'svc_blockNumber', params: ['x'.repeat(5000)] });
    expect((await postRaw(node.url, big)).status).toBe(413);
    expect(await chunked(node.url, [big.slice(0, 3000), big.slice(3000)])).toBe(413);
    // The node keeps serving after refusing.
    expect((await postRaw(node.url, '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber"}')).status).toBe(200);
  });

  it('a body at the limit is served', async () => {
    const base = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'svc_blockNumber' });
    const padded = base + ' '.repeat(4096 - base.length);
    expect(padded.length).toBe(4096);
    expect((await postRaw(node.url, padded)).status).toBe(200);
  });

  it('other methods on / are 405', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'GET']) {
      const res = await fetch(node.url, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('other paths are 404', async () => {
    expect((await fetch(`${node.url}/nope`)).status).toBe(404);
    expect(
      (await fetch(`${node.url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
        .status,
    ).toBe(404);
  });

  it('a notification-only batch is 204 with no body', async () => {
    const res = await postRaw(
      node.url,
      '[{"jsonrpc":"2.0","method":"svc_blockNumber"},{"jsonrpc":"2.0","method":"svc_blockNumber"}]',
    );
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  it('JSON-RPC errors travel with HTTP 200', async () => {
    expect((await postRaw(node.url, '{"jsonrpc":"2.0","id":1,"method":"nope"}')).status).toBe(200);
    expect((await postRaw(node.url, 'not json')).status).toBe(200);
  });

  it('GET /health is 200 healthy on a running validator', async () => {
    const res = await fetch(`${node.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('healthy');
  });

  it('GET / with Upgrade: websocket serves JSON-RPC on the same port; other paths refuse the upgrade', async () => {
    const ws = await WsClient.connect(node.wsUrl);
    expect(await ws.request('{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber"}')).toMatchObject({
      id: 1,
      result: expect.any(Number),
    });
    await ws.close();
    await expect(WsClient.connect(`${node.wsUrl}/other`)).rejects.toThrow();
  });

  it('a WebSocket message over the limit closes that connection with 1009', async () => {
    const ws = await WsClient.connect(node.wsUrl);
    const closed = new Promise<number>((resolve) => ws.socket.once('close', (code) => resolve(code)));
    ws.socket.send('x'.repeat(5000));
    expect(await closed).toBe(1009);
  });
});
