// Nodes and data dirs a benchmark starts, as processes, removed when it ends; and batch submission.
// Every node started here takes BENCH_CPU_PROF=<dir> (a CPU profile each) and BENCH_NODE_FLAGS (Node
// options, e.g. "--max-semi-space-size=64"); BENCH_NODE_LOG=1 passes its log through.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SvcClient } from '../../sdk/index.js';

const svcNode = fileURLToPath(new URL('../../bin/svc-node.js', import.meta.url));
const dirs: string[] = [];
const children = new Set<ChildProcess>();

export interface NodeProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly p2p: string;
  readonly log: () => string;
}

/** `svc-node start` on free ports; resolves once it has started. */
export function startNode(args: string[]): Promise<NodeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), svcNode, 'start', '--bind', '127.0.0.1:0', '--p2p-host', '127.0.0.1', '--p2p-port', '0', '--log-format', 'json', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let out = '';
    let started = false;
    // Read the node's output all along (a pipe nobody drains would stall its logging), keep it only until it is up.
    child.stdout!.on('data', (d: Buffer) => {
      if (process.env.BENCH_NODE_LOG) process.stderr.write(d);
      if (started) return;
      out += d.toString();
      const url = /rpc listening on (http:\/\/[0-9.:]+)/.exec(out)?.[1];
      const p2p = /p2p listening on (\S+?)"/.exec(out)?.[1];
      if (url && p2p && out.includes('"node started"')) {
        started = true;
        resolve({ child, url, p2p, log: () => out });
      }
    });
    child.once('exit', (code, signal) => {
      if (started && code !== 0 && signal !== 'SIGKILL') process.stderr.write(`svc-node ${args.join(' ')} exited with ${code ?? signal}\n`);
      reject(new Error(`svc-node exited with ${code}: ${out.slice(-2000)}`));
    });
  });
}

export async function stopNode(node: NodeProcess): Promise<void> {
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGINT');
  await exited;
}

export function benchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  dirs.push(dir);
  return dir;
}

/** Kills what is left and removes the data dirs. */
export function cleanUp(): void {
  for (const child of children) child.kill(process.env.BENCH_CPU_PROF ? 'SIGINT' : 'SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

/** Raw transactions in JSON-RPC batches of 100 over a few connections; any refusal ends the run. */
/** One JSON-RPC batch of submissions; any refusal ends the run (a benchmark's transactions are all valid). */
async function sendBatch(client: SvcClient, raws: readonly string[], method: string): Promise<void> {
  const results = await client.batch(raws.map((raw) => ({ method, params: [raw] })));
  const failed = results.find((r) => !r.ok);
  if (failed && !failed.ok) throw new Error(`submission refused: ${failed.error.message} ${failed.error.data?.reason ?? ''}`);
}

/** As fast as `connections` connections take batches of `batchSize`. */
export async function submitAll(client: SvcClient, raws: string[], connections = 4, method = 'svc_sendRawTransaction', batchSize = 100): Promise<void> {
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
export async function submitPaced(client: SvcClient, raws: string[], rate: number, method = 'svc_sendRawTransaction'): Promise<void> {
  const size = Math.max(1, Math.round(rate / 20));
  const start = performance.now();
  for (let i = 0; i < raws.length; i += size) {
    const due = start + (i / rate) * 1000;
    if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
    await sendBatch(client, raws.slice(i, i + size), method);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc: where the work of a run went. */
export function cpuSeconds(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
