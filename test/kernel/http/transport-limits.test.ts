import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientAddressResolver } from '../../../kernel/http/client-address.js';
import { startTestNode, type TestNode } from '../../helpers/test-node.js';
import { WsClient } from '../../helpers/ws-client.js';

let node: TestNode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

function handshakeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.once('error', () => undefined);
  });
}

describe('transport limits', () => {
  it('caps WebSocket connections per client and in all', async () => {
    node = await startTestNode({ storage: 'memory', rpc: { maxWsConnectionsPerClient: 2, maxWsConnections: 3 } });
    const a = await WsClient.connect(node.wsUrl);
    const b = await WsClient.connect(node.wsUrl);
    expect(await handshakeStatus(node.wsUrl)).toBe(429);
    await a.close();
    // A closed connection frees its place.
    const c = await WsClient.connect(node.wsUrl);
    await Promise.all([b.close(), c.close()]);
  });

  it('closes a WebSocket that stays idle past the timeout', async () => {
    node = await startTestNode({ storage: 'memory', rpc: { wsIdleTimeoutSeconds: 1 } });
    const ws = await WsClient.connect(node.wsUrl);
    const [code, reason] = await new Promise<[number, string]>((resolve) =>
      ws.socket.once('close', (c, r) => resolve([c, r.toString()])),
    );
    expect(code).toBe(1000);
    expect(reason).toBe('idle timeout');
  });

  it('allows any origin on a local devnet without guardrails, with preflight', async () => {
    node = await startTestNode({ storage: 'memory' });
    const preflight = await fetch(node.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-svc-nonce');
    const res = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:3000' },
      body: '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber"}',
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('allows no other origin when guardrails are on, unless configured', async () => {
    process.env.SVC_RPC_TOKENS = 'cors-token-0123456789';
    try {
      node = await startTestNode({ storage: 'memory', guardrails: true });
      const preflight = await fetch(node.url, {
        method: 'OPTIONS',
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      expect(await handshakeStatus(node.wsUrl, { origin: 'http://evil.example' })).toBe(403);
      // A page the node serves itself is not cross-origin: its handshake goes on to the guardrails (no token here).
      expect(await handshakeStatus(node.wsUrl, { origin: node.url })).toBe(401);
      expect(await handshakeStatus(node.wsUrl, { origin: node.url.replace('127.0.0.1', 'evil.example') })).toBe(403);
      await node.stop();
      node = await startTestNode({
        storage: 'memory',
        guardrails: true,
        rpc: { corsOrigins: ['https://app.example'] },
      });
      const allowed = await fetch(node.url, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      });
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    } finally {
      delete process.env.SVC_RPC_TOKENS;
    }
  });

  it('trusts X-Forwarded-For only from configured proxies', () => {
    const none = new ClientAddressResolver([]);
    expect(none.resolve('10.0.0.1', '1.2.3.4')).toBe('10.0.0.1');
    const proxies = new ClientAddressResolver(['10.0.0.0/8', '::1']);
    expect(proxies.resolve('10.0.0.1', '1.2.3.4')).toBe('1.2.3.4');
    expect(proxies.resolve('::ffff:10.0.0.1', '5.6.7.8, 10.1.1.1')).toBe('5.6.7.8');
    expect(proxies.resolve('192.168.1.1', '1.2.3.4')).toBe('192.168.1.1');
    expect(proxies.resolve('::ffff:127.0.0.1', undefined)).toBe('127.0.0.1');
  });

  it('keys the faucet throttle on the forwarded client behind a trusted proxy', async () => {
    node = await startTestNode({
      storage: 'memory',
      rpc: { trustedProxies: ['127.0.0.1', '::1'] },
      faucet: { perIpLimit: 1 },
    });
    const ask = (client: string, address: string) =>
      fetch(node!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'faucet_request', params: [address] }),
      });
    expect((await ask('203.0.113.7', `svc1${'1'.repeat(40)}`)).status).toBe(200);
    expect((await ask('203.0.113.7', `svc1${'2'.repeat(40)}`)).status).toBe(429);
    expect((await ask('203.0.113.8', `svc1${'3'.repeat(40)}`)).status).toBe(200);
  });
});
