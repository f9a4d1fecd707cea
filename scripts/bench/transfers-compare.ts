// `node dist/scripts/bench/transfers-compare.js <other-root> [rounds=3]`: the signed-transfer benchmark
// (transfers.js, the same client for both) against this tree's node and another build's, alternating
// which goes first each round, each round beside one core's Ed25519 verify rate timed in it. Prints
// each run's rate as a share of that verify rate and the node's CPU per transfer (all its threads,
// the funding included), then a JSON line with every run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeProcess } from '../node-process.js';
import { cpuSeconds } from './node-process.js';
import { runJson } from './run-json.js';
import { ed25519VerifyMicros } from './verify-rate.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../../..');
const [otherArg, roundsArg] = process.argv.slice(2);
if (!otherArg) throw new Error('usage: transfers-compare.js <root of another built svc-node> [rounds=3]');
const trees = { this: root, other: resolve(otherArg) };
const rounds = Number(roundsArg ?? 3);
const blockTime = process.env.BENCH_BLOCK_TIME ?? '1000';

interface Run {
  readonly share: number;
  readonly perSecond: number;
  readonly cpuMicrosPerTransfer: number;
}
const runs: Record<keyof typeof trees, Run[]> = { this: [], other: [] };

async function once(tree: string, verifyRate: number): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-transfers-compare-'));
  const node = await NodeProcess.start({
    name: tree,
    bin: join(tree, 'dist/bin/svc-node.js'),
    dataDir,
    args: ['--role', 'validator', '--block-time', blockTime],
  });
  try {
    const before = cpuSeconds(node);
    const result = (await runJson([join(here, 'transfers.js'), node.url])) as {
      transfersPerSecond: number;
      transfers: number;
      accounts: number;
    };
    const cpu = cpuSeconds(node) - before;
    return {
      share: result.transfersPerSecond / verifyRate,
      perSecond: result.transfersPerSecond,
      cpuMicrosPerTransfer: (cpu / (result.transfers + result.accounts)) * 1e6,
    };
  } finally {
    await node.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const);
  const verifyRate = 1e6 / ed25519VerifyMicros();
  for (const name of order) runs[name].push(await once(trees[name], verifyRate));
  process.stderr.write(`round ${round + 1}/${rounds}: verify ${Math.round(verifyRate)}/s\n`);
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const name of ['this', 'other'] as const) {
  const list = runs[name];
  process.stdout.write(
    `${name}: median ${median(list.map((r) => r.share)).toFixed(2)} of the verify rate (runs ${list
      .map((r) => `${r.share.toFixed(2)} = ${Math.round(r.perSecond)}/s, ${Math.round(r.cpuMicrosPerTransfer)} µs CPU`)
      .join('; ')})\n`,
  );
}
process.stdout.write(`${JSON.stringify(runs)}\n`);
