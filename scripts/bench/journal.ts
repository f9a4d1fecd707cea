// What the journal of acknowledged transactions costs: the transfers benchmark (transfers.js: 10,000
// pre-signed transfers from 1,000 accounts in JSON-RPC batches over 8 connections, submission to
// inclusion) against a fresh validator with the journal (every acknowledgement waits for its fdatasync,
// shared by whatever arrived meanwhile) and one with `--tx-journal false`, alternating, PAIRS times
// in one run. Prints one JSON line: every run, the medians and their ratio. Env: BENCH_PAIRS (6),
// BENCH_BLOCK_TIME (1000).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchDir, cleanUp, startNode, stopNode } from './node-process.js';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 6);
const BLOCK_TIME = process.env.BENCH_BLOCK_TIME ?? '1000';
const transfersScript = fileURLToPath(new URL('./transfers.js', import.meta.url));

interface TransfersResult {
  readonly transfersPerSecond: number;
  readonly submitSeconds: number;
}

function transfers(url: string): Promise<TransfersResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [transfersScript, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)!) as TransfersResult);
      } catch {
        reject(new Error(`transfers.js exited with ${code}: ${out.slice(-500)}`));
      }
    });
  });
}

async function once(journal: boolean): Promise<TransfersResult> {
  const node = await startNode([
    '--role',
    'validator',
    '--data-dir',
    benchDir(),
    '--block-time',
    BLOCK_TIME,
    '--tx-journal',
    String(journal),
  ]);
  try {
    return await transfers(node.url);
  } finally {
    await stopNode(node);
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

try {
  const withJournal: TransfersResult[] = [];
  const without: TransfersResult[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    // Alternate which goes first: the machine's drift lands on both sides.
    const order = pair % 2 === 0 ? [true, false] : [false, true];
    for (const journal of order) (journal ? withJournal : without).push(await once(journal));
    process.stderr.write(
      `pair ${pair + 1}/${PAIRS}: journal ${withJournal.at(-1)!.transfersPerSecond.toFixed(0)}/s, none ${without.at(-1)!.transfersPerSecond.toFixed(0)}/s\n`,
    );
  }
  const tps = (runs: TransfersResult[]) => runs.map((r) => Math.round(r.transfersPerSecond));
  const submit = (runs: TransfersResult[]) => runs.map((r) => Number(r.submitSeconds.toFixed(2)));
  process.stdout.write(
    `${JSON.stringify({
      pairs: PAIRS,
      journal: {
        transfersPerSecond: tps(withJournal),
        submitSeconds: submit(withJournal),
        median: median(tps(withJournal)),
      },
      none: { transfersPerSecond: tps(without), submitSeconds: submit(without), median: median(tps(without)) },
      ratio: Number((median(tps(withJournal)) / median(tps(without))).toFixed(3)),
      submitRatio: Number((median(submit(without)) / median(submit(withJournal))).toFixed(3)),
    })}\n`,
  );
} finally {
  await cleanUp();
}
