// `node dist/scripts/bench/compare.js <other-root> [rounds] [seconds]`: the RPC hot paths (single
// `svc_blockNumber` calls over HTTP, pipelined over WebSocket, and single `svc_getBalance` calls of a
// funded account over HTTP) of this tree's node and another build of svc-node (a worktree of another
// commit, built), in alternating rounds. Each measurement of a node is paired with one of the bare
// ceiling taken just before it: this machine's speed moves by ±20% within minutes, and a ratio to a
// ceiling measured a minute away carried that drift. Each node is warmed first (its JIT and caches, as
// a node serving load has them; the ceiling is warm after its first round): a fresh node's first
// seconds were counted against a warm ceiling. Besides the rates, each side's CPU per call (every
// thread of the server's process, from /proc), which the load generator's share of the two cores does
// not move.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { devnetKey } from '../../sdk/index.js';
import { NodeProcess } from '../node-process.js';
import { cpuMsOf } from './proc-stat.js';
import { autocannonArgs, wsLoadArgs } from './load-args.js';
import { runJson } from './run-json.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../../..');
const [otherArg, roundsArg, secondsArg] = process.argv.slice(2);
if (!otherArg) throw new Error('usage: compare.js <root of another built svc-node> [rounds=3] [seconds=10]');
const other = resolve(otherArg);
const rounds = Number(roundsArg ?? 3);
const seconds = Number(secondsArg ?? 10);
const single = '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber","params":[]}';
const balance = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'svc_getBalance',
  params: [devnetKey('account', 0).address],
});

function start(args: string[], pattern: RegExp): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = pattern.exec(out);
      if (match) done({ child, url: match[1]!.startsWith('http') ? match[1]! : `http://127.0.0.1:${match[1]}` });
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

type Kind = 'http' | 'ws' | 'balance';
const kinds: readonly Kind[] = ['http', 'ws', 'balance'];
/** What one load of `seconds` gave: calls per second, and the server's CPU microseconds per call. */
type Sample = { rate: number; cpuMicros: number };

async function load(kind: Kind, url: string, pid: number, secs = seconds): Promise<Sample> {
  const cpuBefore = cpuMsOf(pid);
  let rate: number;
  let calls: number;
  if (kind === 'ws') {
    const out = (await runJson(wsLoadArgs(url, 4, 64, secs))) as { callsPerSecond: number };
    rate = out.callsPerSecond;
    // ws-load counts only after its 1 s warm-up, which the CPU window includes at about the same rate.
    calls = rate * (secs + 1);
  } else {
    const body = kind === 'http' ? single : balance;
    const out = (await runJson(autocannonArgs({ url, body, connections: 50, seconds: secs }))) as {
      requests: { average: number; total: number };
    };
    rate = out.requests.average;
    calls = out.requests.total;
  }
  return { rate, cpuMicros: ((cpuMsOf(pid) - cpuBefore) * 1000) / Math.max(calls, 1) };
}

async function node(tree: string): Promise<{ node: NodeProcess; url: string; dir: string; pid: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-compare-'));
  const node = await NodeProcess.start({
    name: tree,
    bin: join(tree, 'dist/bin/svc-node.js'),
    dataDir: dir,
    args: ['--role', 'validator', '--log-level', 'info'],
  });
  return { node, url: node.url, dir, pid: node.pid! };
}

const ceiling = await start([join(here, 'ceiling.js')], /listening (\d+)/);
const ceilingPid = ceiling.child.pid!;
const trees = { this: root, other };
type Pair = { ceiling: Sample; node: Sample };
const pairs: Record<'this' | 'other', Record<Kind, Pair[]>> = {
  this: { http: [], ws: [], balance: [] },
  other: { http: [], ws: [], balance: [] },
};
try {
  for (const kind of kinds) await load(kind, ceiling.url, ceilingPid, 3);
  for (let round = 0; round < rounds; round++) {
    // Alternate which build goes first, so neither always runs on a warmer machine.
    const order = round % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const);
    for (const name of order) {
      const started = await node(trees[name]);
      try {
        for (const kind of kinds) await load(kind, started.url, started.pid, 3);
        for (const kind of kinds) {
          const ceilingSample = await load(kind, ceiling.url, ceilingPid);
          pairs[name][kind].push({ ceiling: ceilingSample, node: await load(kind, started.url, started.pid) });
        }
      } finally {
        await started.node.stop('SIGTERM');
        rmSync(started.dir, { recursive: true, force: true });
      }
    }
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
} finally {
  ceiling.child.kill('SIGTERM');
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const pct = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`;
for (const kind of kinds) {
  for (const name of ['this', 'other'] as const) {
    const runs = pairs[name][kind];
    const rates = runs.map((p) => p.node.rate / p.ceiling.rate);
    const cpu = runs.map((p) => p.node.cpuMicros / p.ceiling.cpuMicros);
    process.stdout.write(
      `${kind} ${name}: ${pct(median(rates))} of the ceiling's rate in the same round (runs ${rates.map(pct).join(', ')}; ` +
        `${Math.round(median(runs.map((p) => p.node.rate)))}/s); CPU per call ${median(cpu).toFixed(2)}x the ceiling's ` +
        `(${median(runs.map((p) => p.node.cpuMicros)).toFixed(1)} against ${median(runs.map((p) => p.ceiling.cpuMicros)).toFixed(1)} µs)\n`,
    );
  }
}
process.stdout.write(`${JSON.stringify(pairs)}\n`);
