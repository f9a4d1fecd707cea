// `node dist/scripts/bench/compare.js <other-root> [rounds] [seconds]`: the RPC hot paths (single
// `svc_blockNumber` calls over HTTP, pipelined over WebSocket, and single `svc_getBalance` calls of a
// funded account over HTTP) of this tree's node and another build of svc-node
// (a worktree of another commit, built), in alternating rounds against the same bare ceiling, so
// run-to-run noise shows up as spread rather than as a difference between commits.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { devnetKey } from '../../sdk/index.js';
import { NodeProcess } from '../node-process.js';
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

const httpRate = async (url: string, body = single): Promise<number> =>
  (
    (await runJson(autocannonArgs({ url, body, connections: 50, seconds }))) as {
      requests: { average: number };
    }
  ).requests.average;
const wsRate = async (url: string): Promise<number> =>
  (
    (await runJson(wsLoadArgs(url, 4, 64, seconds))) as {
      callsPerSecond: number;
    }
  ).callsPerSecond;

async function node(tree: string): Promise<{ node: NodeProcess; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-compare-'));
  const node = await NodeProcess.start({
    name: tree,
    bin: join(tree, 'dist/bin/svc-node.js'),
    dataDir: dir,
    args: ['--role', 'validator', '--log-level', 'info'],
  });
  return { node, url: node.url, dir };
}

const ceiling = await start([join(here, 'ceiling.js')], /listening (\d+)/);
const trees = { this: root, other };
const results: Record<string, { http: number[]; ws: number[]; balance: number[] }> = {
  ceiling: { http: [], ws: [], balance: [] },
  this: { http: [], ws: [], balance: [] },
  other: { http: [], ws: [], balance: [] },
};
try {
  for (let round = 0; round < rounds; round++) {
    // Alternate which build goes first, so neither always runs on a warmer machine.
    const order = round % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const);
    results.ceiling!.http.push(await httpRate(ceiling.url));
    results.ceiling!.ws.push(await wsRate(ceiling.url));
    results.ceiling!.balance.push(await httpRate(ceiling.url, balance));
    for (const name of order) {
      const started = await node(trees[name]);
      try {
        results[name]!.http.push(await httpRate(started.url));
        results[name]!.ws.push(await wsRate(started.url));
        results[name]!.balance.push(await httpRate(started.url, balance));
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
const pct = (a: number, b: number): string => `${((a / b) * 100).toFixed(1)}%`;
for (const kind of ['http', 'ws', 'balance'] as const) {
  const ceil = median(results.ceiling![kind]);
  for (const name of ['this', 'other'] as const) {
    const runs = results[name]![kind];
    process.stdout.write(
      `${kind} ${name}: median ${Math.round(median(runs))}/s = ${pct(median(runs), ceil)} of ceiling (runs ${runs.map((r) => pct(r, ceil)).join(', ')})\n`,
    );
  }
}
process.stdout.write(`${JSON.stringify(results)}\n`);
