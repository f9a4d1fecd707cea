// Nodes and data dirs a benchmark starts, as processes (the shared NodeProcess), removed when it ends;
// and batch submission. Every node started here takes BENCH_CPU_PROF=<dir> (a CPU profile each) and
// BENCH_NODE_FLAGS (Node options, e.g. "--max-semi-space-size=64"); BENCH_NODE_LOG=1 passes its log
// through. Each node's log is a file beside its data dirs (removed with them).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SvcClient } from '../../sdk/index.js';
import { NodeProcess, SVC_NODE } from '../node-process.js';
import { cpuMsOf } from './proc-stat.js';

export type { NodeProcess };
const dirs: string[] = [];
const nodes = new Set<NodeProcess>();

/** Node options every benchmark node takes from the environment. */
function benchNodeOptions(): string[] {
  return [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
  ];
}

/** The svc-node entry benchmarks start: this build's, or another's (BENCH_SVC_BIN, for alternating runs of two builds). */
export const benchSvcBin = (): string => process.env.BENCH_SVC_BIN ?? SVC_NODE;

/** A devnet validator (its built-in genesis) making a block a second, in a data dir of the benchmark's. */
export function startDevnetValidator(): Promise<NodeProcess> {
  return startNode(['--role', 'validator', '--network', 'devnet', '--data-dir', benchDir(), '--block-time', '1000']);
}

/** What a balance probe measured: its calls and their latencies. */
export interface ProbeResult {
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * An independent `svc_getBalance` reader in its own process (balance-probe.js), calling every
 * `intervalMs` until its stdin closes; resolves once it is ready, with its result to come.
 */
export function startBalanceProbe(
  url: string,
  address: string,
  intervalMs: string,
): Promise<{ child: ChildProcess; result: Promise<ProbeResult> }> {
  const script = fileURLToPath(new URL('./balance-probe.js', import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, url, address, intervalMs], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    const result = new Promise<ProbeResult>((done) =>
      child.once('exit', () => done(JSON.parse(out.trim().split('\n').at(-1)!) as ProbeResult)),
    );
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.startsWith('ready')) resolve({ child, result });
    });
  });
}

/** `svc-node start` on free ports; resolves once it has started. `onLine` sees each line it writes. */
export async function startNode(
  args: string[],
  nodeOptions: readonly string[] = [],
  onLine?: (line: string) => void,
): Promise<NodeProcess> {
  const node = new NodeProcess({
    name: `svc-node ${args.join(' ')}`,
    args,
    bin: benchSvcBin(),
    logFile: join(benchDir(), 'node.log'),
    nodeOptions: [...benchNodeOptions(), ...nodeOptions],
    echo: Boolean(process.env.BENCH_NODE_LOG),
    ...(onLine ? { onLine } : {}),
  });
  nodes.add(node);
  await node.start();
  return node;
}

/**
 * A lone validator of a network of its own, made by `svc-node init` (the devnet's accounts and
 * parameters) with the genesis parameters `params` besides, e.g. another block gas limit.
 */
export async function startNetworkWith(params: Record<string, unknown>, blockTime: number): Promise<NodeProcess> {
  const out = join(benchDir(), 'network');
  execFileSync(
    process.execPath,
    [benchSvcBin(), 'init', '--validators', '1', '--out', out, '--block-time', String(blockTime)],
    { stdio: 'ignore' },
  );
  const patch = <T>(file: string, change: (json: T) => void) => {
    const json = JSON.parse(readFileSync(join(out, file), 'utf8')) as T;
    change(json);
    writeFileSync(join(out, file), JSON.stringify(json, null, 2));
  };
  patch<Record<string, unknown>>('genesis.json', (genesis) => Object.assign(genesis, params));
  patch<{ rpc: { bind: string }; p2p: { port: number } }>('validator0.json', (config) => {
    config.rpc.bind = '127.0.0.1:0';
    config.p2p.port = 0;
  });
  return startNode(['--config', join(out, 'validator0.json')]);
}

export async function stopNode(node: NodeProcess): Promise<void> {
  await node.stop('SIGINT');
}

export function benchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  dirs.push(dir);
  return dir;
}

/** Ends what is left (cleanly when profiling: a profile is written at exit) and removes the data dirs. */
export async function cleanUp(): Promise<void> {
  await Promise.all([...nodes].map((node) => (process.env.BENCH_CPU_PROF ? node.stop('SIGINT') : node.close())));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

/** Raw transactions in JSON-RPC batches of 100 over a few connections; any refusal ends the run. */
/** One JSON-RPC batch of submissions; any refusal ends the run (a benchmark's transactions are all valid). */
async function sendBatch(client: SvcClient, raws: readonly string[], method: string): Promise<void> {
  const results = await client.batch(raws.map((raw) => ({ method, params: [raw] })));
  const failed = results.find((r) => !r.ok);
  if (failed && !failed.ok)
    throw new Error(`submission refused: ${failed.error.message} ${failed.error.data?.reason ?? ''}`);
}

/** As fast as `connections` connections take batches of `batchSize`. */
export async function submitAll(
  client: SvcClient,
  raws: string[],
  connections = 4,
  method = 'svc_sendRawTransaction',
  batchSize = 100,
): Promise<void> {
  const batches: string[][] = [];
  for (let i = 0; i < raws.length; i += batchSize) batches.push(raws.slice(i, i + batchSize));
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < batches.length) await sendBatch(client, batches[next++]!, method);
    }),
  );
}

/** At `rate` per second: batches of a twentieth of a second's, each sent at its time (one connection: they arrive in order). */
export async function submitPaced(
  client: SvcClient,
  raws: string[],
  rate: number,
  method = 'svc_sendRawTransaction',
): Promise<void> {
  const size = Math.max(1, Math.round(rate / 20));
  const start = performance.now();
  for (let i = 0; i < raws.length; i += size) {
    const due = start + (i / rate) * 1000;
    if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
    await sendBatch(client, raws.slice(i, i + size), method);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc: where the work of a run went. */
export function cpuSeconds(node: { readonly pid?: number | undefined }): number {
  return cpuMsOf(node.pid!) / 1000;
}
