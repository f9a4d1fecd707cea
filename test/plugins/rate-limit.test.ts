import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPair, newNonce } from '../../sdk/index.js';
import { RateLimiter } from '../../plugins/rate-limit/limiter.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';
import { WsClient } from '../helpers/ws-client.js';

let node: TestNode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

const call = (id = 1) => ({ jsonrpc: '2.0', id, method: 'svc_blockNumber' });

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('rate-limit plugin', () => {
  it('sends the headers on every response, counting down, then answers 429 with Retry-After', async () => {
    node = await startTestNode({ storage: 'memory', rateLimit: { limit: 3, burst: 2, windowSeconds: 60 } });
    // Windows are whole minutes of the clock: start the six calls well inside one, so none lands in the next.
    await waitFor(
      () => Date.now() % 60_000,
      (intoWindow) => intoWindow < 50_000,
      15_000,
      'a fresh part of the rate window',
    );
    const seen: [string | null, string | null][] = [];
    for (let i = 0; i < 5; i++) {
      const sentAt = Date.now();
      const res = await post(node.url, call(i));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      // The window's end, in whole seconds, is after the call was made (it may have passed by the time the answer is read).
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(sentAt / 1000);
      seen.push([res.headers.get('x-ratelimit-remaining'), res.headers.get('x-svc-burst-remaining')]);
    }
    expect(seen).toEqual([
      ['2', '2'],
      ['1', '2'],
      ['0', '2'],
      ['0', '1'],
      ['0', '0'],
    ]);
    const refused = await post(node.url, call(6));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toMatchObject({
      error: { code: -32005, message: 'rate_limited', data: { retryAfterSeconds: expect.any(Number) } },
    });
    // /health and /metrics are not counted and still served.
    expect((await fetch(`${node.url}/health`)).status).toBe(200);
    expect((await fetch(`${node.url}/metrics`)).status).toBe(200);
  });

  it('counts each call of a batch and refuses a batch larger than what remains', async () => {
    node = await startTestNode({ storage: 'memory', rateLimit: { limit: 10, windowSeconds: 60 } });
    const first = await post(
      node.url,
      Array.from({ length: 8 }, (_, i) => call(i)),
    );
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    const tooBig = await post(
      node.url,
      Array.from({ length: 3 }, (_, i) => call(i)),
    );
    expect(tooBig.status).toBe(429);
    // The refused batch used nothing: two single calls still fit.
    expect((await post(node.url, call())).status).toBe(200);
    expect((await post(node.url, call())).status).toBe(200);
    expect((await post(node.url, call())).status).toBe(429);
  });

  it('limits keys independently: tokens with guardrails, else client addresses', async () => {
    process.env.SVC_RPC_TOKENS = 'alpha-token-0123456789,bravo-token-0123456789';
    try {
      node = await startTestNode({ storage: 'memory', guardrails: true, rateLimit: { limit: 2, burst: 0 } });
    } finally {
      delete process.env.SVC_RPC_TOKENS;
    }
    const as = (token: string) => ({ authorization: `Bearer ${token}`, 'x-svc-nonce': newNonce() });
    expect((await post(node.url, call(), as('alpha-token-0123456789'))).status).toBe(200);
    expect((await post(node.url, call(), as('alpha-token-0123456789'))).status).toBe(200);
    expect((await post(node.url, call(), as('alpha-token-0123456789'))).status).toBe(429);
    const bravo = await post(node.url, call(), as('bravo-token-0123456789'));
    expect(bravo.status).toBe(200);
    expect(bravo.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('applies over WebSocket per message, with the header fields in the error data', async () => {
    node = await startTestNode({ storage: 'memory', rateLimit: { limit: 2, burst: 0 } });
    const ws = await WsClient.connect(node.wsUrl);
    expect(await ws.request(JSON.stringify(call(1)))).toMatchObject({ result: expect.any(Number) });
    expect(await ws.request(JSON.stringify(call(2)))).toMatchObject({ result: expect.any(Number) });
    expect(await ws.request(JSON.stringify(call(3)))).toMatchObject({
      error: {
        code: -32005,
        message: 'rate_limited',
        data: {
          retryAfterSeconds: expect.any(Number),
          ratelimitLimit: 2,
          ratelimitRemaining: 0,
          retryAfter: expect.any(Number),
        },
      },
    });
    await ws.close();
  });

  it('serves a key again in the next window, and keeps at most maxKeys keys', () => {
    const limiter = new RateLimiter({ limit: 1, windowSeconds: 60, burst: 0, maxKeys: 1000 });
    const t0 = 1_700_000_000_000;
    expect(limiter.take('a', 1, t0).allowed).toBe(true);
    expect(limiter.take('a', 1, t0 + 1000).allowed).toBe(false);
    expect(limiter.take('a', 1, t0 + 60_000).allowed).toBe(true);
    for (let i = 0; i < 100_000; i++) limiter.take(`key-${i}`, 1, t0);
    expect(limiter.keys).toBe(1000);
    // The most recent keys are the ones kept.
    expect(limiter.take('key-99999', 1, t0).allowed).toBe(false);
  });
});

describe('faucet per-client throttle', () => {
  it('refuses the 21st grant from one client within the hour with 429', async () => {
    node = await startTestNode({ storage: 'memory' });
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await post(node.url, {
        jsonrpc: '2.0',
        id: i,
        method: 'faucet_request',
        params: [generateKeyPair().address],
      });
      statuses.push(res.status);
      if (i === 20) {
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(await res.json()).toMatchObject({
          error: { code: -32005, message: 'rate_limited', data: { retryAfterSeconds: expect.any(Number) } },
        });
      }
    }
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
  });
});
