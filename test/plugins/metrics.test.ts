import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';
import { WsClient } from '../helpers/ws-client.js';

interface Family {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string }[];
}

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ storage: 'memory' });
});
afterAll(async () => {
  await node.stop();
});

async function scrape(): Promise<Map<string, Family>> {
  const res = await fetch(`${node.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4');
  const families = parsePrometheusTextFormat(await res.text()) as Family[];
  return new Map(families.map((f) => [f.name, f]));
}

describe('metrics plugin', () => {
  it('exposes Prometheus text with RPC calls by method and outcome, latency, head height, WS connections and process metrics', async () => {
    await rpc(node.url, 'svc_blockNumber');
    await rpc(node.url, 'svc_blockNumber');
    await rpc(node.url, 'svc_getBlockByNumber', [99999999]);
    await rpc(node.url, 'no_suchMethod');
    const ws = await WsClient.connect(node.wsUrl);
    await ws.request('{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber"}');

    const families = await scrape();
    const calls = families.get('svc_rpc_calls_total')!;
    expect(calls.type).toBe('COUNTER');
    const count = (labels: Record<string, string>): number =>
      calls.metrics
        .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
        .reduce((sum, m) => sum + Number(m.value), 0);
    expect(count({ method: 'svc_blockNumber', outcome: 'ok', transport: 'http' })).toBe(2);
    expect(count({ method: 'svc_blockNumber', outcome: 'ok', transport: 'ws' })).toBe(1);
    expect(count({ method: 'svc_getBlockByNumber', outcome: 'not_found' })).toBe(1);
    expect(count({ method: '(unknown)', outcome: 'Method not found' })).toBe(1);
    expect(families.get('svc_rpc_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(families.get('svc_ws_connections')!.metrics[0]!.value).toBe('1');
    expect(families.has('svc_process_cpu_seconds_total')).toBe(true);

    const head = (await rpc<number>(node.url, 'svc_blockNumber')).body.result!;
    await waitFor(
      async () => Number((await scrape()).get('svc_chain_head_height')!.metrics[0]!.value),
      (h) => h >= head,
      10_000,
      'head gauge',
    );
    await ws.close();
    await waitFor(
      async () => (await scrape()).get('svc_ws_connections')!.metrics[0]!.value,
      (v) => v === '0',
      10_000,
      'ws gauge back to 0',
    );
  });

  it('follows the Prometheus naming rules that promtool checks: counters end in _total and nothing else does, snake_case, base units, help text', async () => {
    await rpc(node.url, 'svc_blockNumber');
    const text = await (await fetch(`${node.url}/metrics`)).text();
    const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    const helps = new Set([...text.matchAll(/^# HELP (\S+) \S/gm)].map((m) => m[1]!));
    expect(types.size).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const [name, type] of types) {
      if (type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter without _total`);
      if (type !== 'counter' && name.endsWith('_total')) problems.push(`${name}: ${type} named like a counter`);
      if (!/^[a-z_:][a-z0-9_:]*$/.test(name)) problems.push(`${name}: not snake_case`);
      if (/_(milliseconds|ms|kilobytes|megabytes)(_|$)/.test(name))
        problems.push(`${name}: not in base units (seconds, bytes)`);
      if (/_(gauge|counter|histogram|summary)(_|$)/.test(name)) problems.push(`${name}: names its type`);
      if (!helps.has(name)) problems.push(`${name}: no help text`);
    }
    expect(problems).toEqual([]);
  });
});
