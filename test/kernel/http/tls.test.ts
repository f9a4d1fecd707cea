import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chain } from '../../../chain/chain.js';
import { SvcClient } from '../../../sdk/index.js';
import { SvcWsClient, type WebSocketConstructor } from '../../../sdk/ws-client.js';
import { run, SVC, SVC_NODE } from '../../helpers/cli.js';
import { makeTestCertificates, type TestCertificates } from '../../helpers/certificates.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';

const headOf = (test: TestNode): number => test.node.service<Chain>('chain').head.height;

let certs: TestCertificates;
let node: TestNode;
let ca: string;
beforeAll(async () => {
  certs = makeTestCertificates();
  ca = readFileSync(certs.caFile, 'utf8');
  node = await startTestNode({
    storage: 'memory',
    rpc: { bind: '127.0.0.1:0', tls: { cert: certs.certFile, key: certs.keyFile } },
  });
});
afterAll(async () => {
  await node?.stop();
});

describe('TLS (--tls-cert/--tls-key)', () => {
  it('serves JSON-RPC over HTTPS on the bind port and says https in the listening line', async () => {
    expect(node.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(node.logs.lines.some((line) => line.msg === `rpc listening on ${node.url}`)).toBe(true);
    const client = new SvcClient({ url: node.url, ca });
    // The head over HTTPS is the node's own, read between two looks at it in the process.
    await waitFor(
      () => headOf(node),
      (h) => h >= 2,
      10_000,
      'height 2',
    );
    const before = headOf(node);
    const overHttps = await client.blockNumber();
    expect(overHttps).toBeGreaterThanOrEqual(before);
    expect(overHttps).toBeLessThanOrEqual(headOf(node));
    expect((await client.chainInfo()).chainId).toBe('svc-devnet-1');
    // Without trusting the authority, the certificate is refused.
    await expect(new SvcClient(node.url).blockNumber()).rejects.toThrow(
      /^cannot reach https:\/\/127\.0\.0\.1:\d+: its TLS certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
    );
    // Plain HTTP on a TLS port gets nowhere.
    await expect(
      fetch(node.url.replace('https:', 'http:'), { method: 'POST', body: '{}', signal: AbortSignal.timeout(5_000) }),
    ).rejects.toThrow();
  });

  it('serves WSS on the same port: subscriptions work', async () => {
    const ws = new SvcWsClient({
      url: node.url.replace(/^https/, 'wss'),
      ca,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    try {
      const heads = await ws.subscribeHeads();
      const first = await heads[Symbol.asyncIterator]().next();
      expect(first.value).toMatchObject({ height: expect.any(Number), hash: expect.stringMatching(/^0x/) });
    } finally {
      ws.close();
    }
  });

  it('svc trusts the authority from --ca-file or SVC_CA_FILE, and says how when it is missing', async () => {
    expect((await run(SVC, ['block-number', '--url', node.url, '--ca-file', certs.caFile])).code).toBe(0);
    const fromEnv = await run(SVC, ['chain-info', '--json', '--url', node.url], { SVC_CA_FILE: certs.caFile });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ chainId: 'svc-devnet-1' });
    const untrusted = await run(SVC, ['block-number', '--url', node.url], { SVC_CA_FILE: '' });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain("trust the node's certificate authority with --ca-file <file> or SVC_CA_FILE");
    // http:// to the TLS port: the node hangs up on plain HTTP; svc says the port speaks HTTPS.
    const plain = node.url.replace(/^https:/, 'http:');
    const wrongScheme = await run(SVC, ['block-number', '--url', plain]);
    expect(wrongScheme.code).toBe(1);
    expect(wrongScheme.stderr).toContain(`speaks HTTPS: use --url ${node.url}`);
    const missing = await run(SVC, ['block-number', '--url', node.url, '--ca-file', '/nonexistent/ca.pem']);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 2,
      stderr: 'svc: --ca-file /nonexistent/ca.pem: cannot read it (ENOENT)\n',
    });
  });

  it('svc-node refuses half a TLS pair, an unreadable file, and a key that does not match, naming the option', async () => {
    const dir = tempDir();
    const common = [
      'start',
      '--data-dir',
      join(dir, 'data'),
      '--bind',
      '127.0.0.1:0',
      '--p2p-host',
      '127.0.0.1',
      '--p2p-port',
      '0',
      '--log-level',
      'silent',
    ];
    const half = await run(SVC_NODE, [...common, '--tls-cert', certs.certFile]);
    expect([half.code, half.stderr]).toEqual([
      2,
      'svc-node: --tls-cert and --tls-key (config rpc.tls.cert and rpc.tls.key) go together: give both\n',
    ]);
    const unreadable = await run(SVC_NODE, [
      ...common,
      '--tls-cert',
      join(dir, 'nope.pem'),
      '--tls-key',
      certs.keyFile,
    ]);
    expect([unreadable.code, unreadable.stderr]).toEqual([
      2,
      `svc-node: --tls-cert ${join(dir, 'nope.pem')}: cannot read it (ENOENT)\n`,
    ]);
    const wrongKey = join(dir, 'wrong.key');
    writeFileSync(wrongKey, readFileSync(certs.caFile.replace('ca.pem', 'ca.key')));
    const mismatch = await run(SVC_NODE, [...common, '--tls-cert', certs.certFile, '--tls-key', wrongKey]);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(
      /^svc-node: --tls-cert .* \/ --tls-key .*: not a PEM certificate and its private key/,
    );
  });
});
