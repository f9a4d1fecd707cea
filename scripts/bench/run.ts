// `npm run bench`: svc-node's JSON-RPC path against the bare node:http / ws ceiling, side by side.
// Load generators run as separate processes (autocannon; scripts/bench/ws-load). Results are printed
// as a Markdown table to paste into BENCHMARKS.md, and as JSON in .bench/results.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { devnetKey } from '../../sdk/index.js';
import { NodeProcess } from '../node-process.js';
import { ed25519VerifyMicros } from './verify-rate.js';
import { autocannonArgs, wsLoadArgs } from './load-args.js';
import { runJson } from './run-json.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../../..');
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;

interface Started {
  child: ChildProcess;
  url: string;
}

function startProcess(args: string[], pattern: RegExp, env: Record<string, string> = {}): Promise<Started> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = pattern.exec(out);
      if (match)
        resolvePromise({ child, url: match[1]!.startsWith('http') ? match[1]! : `http://127.0.0.1:${match[1]}` });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)));
  });
}

interface HttpResult {
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

async function autocannon(url: string, body: string): Promise<HttpResult> {
  const result = (await runJson(autocannonArgs({ url, body, connections, seconds: duration }))) as {
    requests: { average: number };
    latency: { p99: number };
    errors: number;
    non2xx: number;
  };
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

const single = '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber","params":[]}';
const batch = JSON.stringify(
  Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'svc_blockNumber', params: [] })),
);

const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const ceiling = await startProcess([join(here, 'ceiling.js')], /listening (\d+)/);
const node = await NodeProcess.start({
  name: 'validator',
  dataDir,
  args: ['--role', 'validator', '--log-level', 'info'],
});
try {
  process.stderr.write(`bench: ${duration}s per run, ${connections} connections\n`);
  const rows: {
    name: string;
    svc: number;
    ceiling: number;
    unit: string;
    ratio: number;
    target: string;
    extra?: string;
  }[] = [];

  /** One body against the bare server and the node; `perRequest` calls in each request (a batch's size). */
  const againstCeiling = async (name: string, body: string, target: string, perRequest = 1): Promise<void> => {
    const ceil = await autocannon(ceiling.url, body);
    const svc = await autocannon(node.url, body);
    rows.push({
      name,
      svc: svc.requestsPerSecond * perRequest,
      ceiling: ceil.requestsPerSecond * perRequest,
      unit: perRequest === 1 ? 'req/s' : 'calls/s',
      ratio: svc.requestsPerSecond / ceil.requestsPerSecond,
      target,
      extra: `p99 ${svc.p99Ms} ms${perRequest === 1 ? '' : ' per batch'} (ceiling ${ceil.p99Ms} ms); errors ${svc.errors + svc.non2xx}`,
    });
  };
  await againstCeiling('svc_blockNumber, single calls over HTTP', single, '>= 85%, p99 < 5 ms');
  await againstCeiling('svc_blockNumber, batches of 100 over HTTP', batch, '>= 90%', 100);
  const balanceBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'svc_getBalance',
    params: [devnetKey('account', 0).address],
  });
  await againstCeiling('svc_getBalance of a funded account over HTTP', balanceBody, '>= 70%');

  const wsSeconds = Math.max(3, duration / 2);
  const ceilWs = (await runJson(wsLoadArgs(ceiling.url, 4, 64, wsSeconds))) as { callsPerSecond: number };
  const svcWs = (await runJson(wsLoadArgs(node.url, 4, 64, wsSeconds))) as { callsPerSecond: number };
  rows.push({
    name: 'svc_blockNumber, pipelined over 4 WebSockets (64 in flight each)',
    svc: svcWs.callsPerSecond,
    ceiling: ceilWs.callsPerSecond,
    unit: 'calls/s',
    ratio: svcWs.callsPerSecond / ceilWs.callsPerSecond,
    target: '>= 90%',
  });

  // HTTP pipelining over the same handful of connections as the WebSocket run, for comparison.
  const pipelined = (await runJson(
    autocannonArgs({ url: node.url, body: single, connections: 4, pipelining: 64, seconds: wsSeconds }),
  )) as { requests: { average: number } };
  rows.push({
    name: 'svc_blockNumber, pipelined over 4 HTTP keep-alive connections (64 in flight each)',
    svc: pipelined.requests.average,
    ceiling: Number.NaN,
    unit: 'calls/s',
    ratio: Number.NaN,
    target: 'compare with WebSocket above',
    extra: '',
  });

  // Guardrails cost: the same authenticated load (token + fresh nonce per request) against two fresh
  // nodes, one with guardrails and rate limiting on, one without (the node above has served every
  // other load by now, which made it slower than a fresh one and the comparison unfair).
  const token = 'bench-token-0123456789abcdef';
  const guardedDir = mkdtempSync(join(tmpdir(), 'svc-bench-guarded-'));
  const plainNode = await NodeProcess.start({
    name: 'without guardrails',
    dataDir: join(guardedDir, 'plain'),
    args: ['--role', 'validator'],
  });
  const guarded = await NodeProcess.start({
    name: 'with guardrails',
    dataDir: join(guardedDir, 'guarded'),
    args: ['--role', 'validator', '--guardrails', 'true', '--rate-limit', '1000000000', '--rate-limit-burst', '0'],
    env: { SVC_RPC_TOKENS: token },
  });
  try {
    const authedLoad = join(here, 'authed-load.js');
    // Alternating runs, averaged: this machine's speed drifts by more than the effect measured.
    type Load = { requestsPerSecond: number; p99Ms: number; errors: number; non2xx: number };
    const plainRuns: Load[] = [];
    const guardedRuns: Load[] = [];
    const slice = String(Math.max(3, Math.round(duration / 2)));
    for (let i = 0; i < 3; i++) {
      plainRuns.push((await runJson([authedLoad, plainNode.url, token, slice])) as Load);
      guardedRuns.push((await runJson([authedLoad, guarded.url, token, slice])) as Load);
    }
    const mean = (runs: Load[]): number => runs.reduce((sum, r) => sum + r.requestsPerSecond, 0) / runs.length;
    const plain = { requestsPerSecond: mean(plainRuns) };
    const withGuardrails = {
      requestsPerSecond: mean(guardedRuns),
      p99Ms: Math.max(...guardedRuns.map((r) => r.p99Ms)),
      errors: guardedRuns.reduce((s, r) => s + r.errors, 0),
      non2xx: guardedRuns.reduce((s, r) => s + r.non2xx, 0),
    };
    rows.push({
      name: 'svc_blockNumber with guardrails + rate limiting on (token + fresh nonce per request) vs off, 3 alternating runs each',
      svc: withGuardrails.requestsPerSecond,
      ceiling: plain.requestsPerSecond,
      unit: 'req/s',
      ratio: withGuardrails.requestsPerSecond / plain.requestsPerSecond,
      target: 'cost < 15% (ratio > 85%)',
      extra: `"ceiling" here is a fresh node without guardrails; p99 ${withGuardrails.p99Ms} ms; refused ${withGuardrails.errors + withGuardrails.non2xx}`,
    });
  } finally {
    for (const started of [guarded, plainNode]) await started.stop('SIGTERM');
    rmSync(guardedDir, { recursive: true, force: true });
  }

  // 1,000 newHeads subscribers on one node.
  const subscriberDir = mkdtempSync(join(tmpdir(), 'svc-bench-subscribers-'));
  const subscriberConfig = join(subscriberDir, 'config.json');
  writeFileSync(subscriberConfig, JSON.stringify({ rpc: { maxWsConnections: 5000, maxWsConnectionsPerClient: 5000 } }));
  const subscriberNode = await NodeProcess.start({
    name: 'subscribers',
    dataDir: join(subscriberDir, 'data'),
    args: ['--config', subscriberConfig, '--role', 'validator', '--block-time', '200'],
  });
  try {
    const fanout = (await runJson([
      join(here, 'subscribers.js'),
      subscriberNode.url.replace('http', 'ws'),
      '1000',
      '30',
    ])) as { subscribers: number; blocks: number; p50Ms: number; p99Ms: number; maxMs: number };
    rows.push({
      name: `newHeads to ${fanout.subscribers} WebSocket subscribers: block timestamp to the last subscriber's receipt (${fanout.blocks} blocks)`,
      svc: fanout.p99Ms,
      ceiling: Number.NaN,
      unit: 'ms p99',
      ratio: Number.NaN,
      target: 'p99 < 50 ms',
      extra: `p50 ${fanout.p50Ms} ms, max ${fanout.maxMs} ms; includes building and committing the block`,
    });
  } finally {
    await subscriberNode.stop('SIGTERM');
    rmSync(subscriberDir, { recursive: true, force: true });
  }

  // Transfers run against a fresh node of their own, so the chain above doesn't carry their state.
  const transferDir = mkdtempSync(join(tmpdir(), 'svc-bench-transfers-'));
  const blockTime = process.env.BENCH_BLOCK_TIME ?? '1000';
  const transferNode = await NodeProcess.start({
    name: 'transfers',
    dataDir: transferDir,
    args: ['--role', 'validator', '--block-time', blockTime],
  });
  let transfers: {
    transfersPerSecond: number;
    transfers: number;
    accounts: number;
    balanceP99Ms: number;
    balanceP50Ms: number;
    balanceCalls: number;
    inclusionSeconds: number;
  };
  try {
    transfers = (await runJson([join(here, 'transfers.js'), transferNode.url])) as typeof transfers;
  } finally {
    await transferNode.stop('SIGTERM');
    rmSync(transferDir, { recursive: true, force: true });
  }
  // One core's signature checks a second, timed here: the same machine, the same minute.
  const verifyRate = 1e6 / ed25519VerifyMicros();
  rows.push({
    name: `${transfers.transfers.toLocaleString('en-US')} pre-signed transfers from ${transfers.accounts} accounts, submission to inclusion (block time ${blockTime} ms)`,
    svc: transfers.transfersPerSecond,
    ceiling: verifyRate,
    unit: 'transfers/s',
    ratio: transfers.transfersPerSecond / verifyRate,
    target: ">= 60% of one core's Ed25519 checks (the ceiling column, same run)",
    extra: `svc_getBalance meanwhile (${transfers.balanceCalls} calls): p50 ${transfers.balanceP50Ms.toFixed(1)} ms, p99 ${transfers.balanceP99Ms.toFixed(1)} ms (target p99 < 20 ms)`,
  });

  // Job runtimes against bare WebAssembly and a bare EVM, then jobs through the chain end to end.
  const runtimes = (await runJson([join(here, 'jobs.js')])) as {
    rounds: number;
    wasm: { meteredMs: number; bareMs: number; gasUsed: string };
    evm: { jobMs: number; bareMs: number; gasUsed: string; n: string };
  };
  /** A run timed against the same work bare: runs per second each way, the ratio of their times. */
  const againstBare = (name: string, ms: number, bareMs: number, target: string, gasUsed: string): void => {
    rows.push({
      name,
      svc: 1000 / ms,
      ceiling: 1000 / bareMs,
      unit: 'runs/s',
      ratio: bareMs / ms,
      target,
      extra: `median of ${runtimes.rounds}: ${ms.toFixed(1)} ms vs ${bareMs.toFixed(1)} ms; gasUsed ${gasUsed}`,
    });
  };
  againstBare(
    'metered WASM job, compute-bound (20 M rounds of a mix through a call), against the same module in bare WebAssembly',
    runtimes.wasm.meteredMs,
    runtimes.wasm.bareMs,
    '>= 60%',
    runtimes.wasm.gasUsed,
  );
  againstBare(
    `EVM job (a loop summing 1..${runtimes.evm.n}), against a bare reused @ethereumjs/evm runCode`,
    runtimes.evm.jobMs,
    runtimes.evm.bareMs,
    '>= 90%',
    runtimes.evm.gasUsed,
  );
  const jobs = (await runJson([join(here, 'job-throughput.js')])) as {
    jobs: number;
    blockMs: number;
    seconds: number;
    jobsPerSecond: number;
    steadyJobsPerSecond: number;
    turnBlocks: Record<string, number>;
    blocks: number;
    balanceCalls: number;
    balanceP99Ms: number;
  };
  const oneBlockTurns = ((jobs.turnBlocks['1'] ?? 0) / jobs.jobs) * 100;
  rows.push({
    name: `${jobs.jobs.toLocaleString('en-US')} small WASI jobs, submission to finalized (validator + one compute node, max_concurrent_jobs 8, ${jobs.blockMs} ms blocks)`,
    svc: jobs.jobsPerSecond,
    ceiling: Number.NaN,
    unit: 'jobs/s',
    ratio: Number.NaN,
    target: '>= 200 jobs/s, svc_getBalance p99 < 20 ms',
    extra: `${jobs.blocks} blocks, ${jobs.seconds.toFixed(1)} s; steady ${jobs.steadyJobsPerSecond.toFixed(0)} jobs/s (commitments per second once the submissions are in, without the 3 s challenge window at the end), ${oneBlockTurns.toFixed(0)}% of slots turned in one block; svc_getBalance meanwhile (${jobs.balanceCalls} calls): p99 ${jobs.balanceP99Ms.toFixed(1)} ms`,
  });

  // Sync: a fresh node imports (re-executes and verifies) a 5,000-block chain from a validator.
  const sync = (await runJson([join(here, 'sync.js')])) as {
    blocks: number;
    transfers: number;
    seconds: number;
    blocksPerSecond: number;
    transfersPerSecond: number;
    sameStateRoot: boolean;
  };
  rows.push({
    name: `fresh node syncing ${sync.blocks.toLocaleString('en-US')} blocks holding ${sync.transfers.toLocaleString('en-US')} transfers from a validator (libp2p, same machine)`,
    svc: sync.transfersPerSecond,
    ceiling: Number.NaN,
    unit: 'transfers/s',
    ratio: Number.NaN,
    target: '>= 2,000 transfers/s',
    extra: `${sync.blocksPerSecond.toFixed(0)} blocks/s; ${sync.seconds.toFixed(1)} s from the follower's start; same state root: ${sync.sameStateRoot}`,
  });

  // Objects: upload with CID, commitment and sniffing; downloads and ranged reads; storage proofs.
  const objects = (await runJson([join(here, 'objects.js')])) as {
    objectMiB: number;
    objects: number;
    upload: { svcMBps: number; ceilingMBps: number };
    download: { svcMBps: number; ceilingMBps: number };
    ranges: {
      count: number;
      bytes: number;
      svcMBps: number;
      ceilingMBps: number;
      svcTtfbP99Ms: number;
      ceilingTtfbP99Ms: number;
    };
    proofs: { proveMs: { p50: number; p99: number }; verifyMs: { p50: number; p99: number }; proofBytes: number };
  };
  const sized = `${objects.objects} objects of ${objects.objectMiB} MiB`;
  rows.push({
    name: `object upload (PUT /omp/objects: CID, commitment, sniffing, synced to disk), ${sized}, against a bare node:http PUT piped to a file`,
    svc: objects.upload.svcMBps,
    ceiling: objects.upload.ceilingMBps,
    unit: 'MB/s',
    ratio: objects.upload.svcMBps / objects.upload.ceilingMBps,
    target: '>= 50%',
    extra: 'the ceiling does not sync its file',
  });
  rows.push({
    name: `object download (GET /ipfs/<cid>), ${sized}, 3 rounds, against node:http + createReadStream`,
    svc: objects.download.svcMBps,
    ceiling: objects.download.ceilingMBps,
    unit: 'MB/s',
    ratio: objects.download.svcMBps / objects.download.ceilingMBps,
    target: '>= 90%',
  });
  rows.push({
    name: `${objects.ranges.count} random ${objects.ranges.bytes / 1024} KiB ranges (206), against node:http + createReadStream`,
    svc: objects.ranges.svcMBps,
    ceiling: objects.ranges.ceilingMBps,
    unit: 'MB/s',
    ratio: objects.ranges.svcMBps / objects.ranges.ceilingMBps,
    target: '>= 90%, time to first byte p99 < 10 ms',
    extra: `time to first byte p99 ${objects.ranges.svcTtfbP99Ms.toFixed(1)} ms (ceiling ${objects.ranges.ceilingTtfbP99Ms.toFixed(1)} ms)`,
  });
  rows.push({
    name: 'storage proof of a random 4 KiB segment of a 1 GiB object: read its 1 MiB piece, build the path (200 proofs)',
    svc: objects.proofs.proveMs.p99,
    ceiling: Number.NaN,
    unit: 'ms p99',
    ratio: Number.NaN,
    target: 'generation < 50 ms, verification < 1 ms',
    extra: `generation p50 ${objects.proofs.proveMs.p50.toFixed(1)} ms; verification p50 ${objects.proofs.verifyMs.p50.toFixed(3)} ms, p99 ${objects.proofs.verifyMs.p99.toFixed(3)} ms; proof ${objects.proofs.proofBytes.toLocaleString('en-US')} bytes`,
  });

  const lines = [
    '| scenario | svc-node | bare ceiling | ratio | target | notes |',
    '|---|---:|---:|---:|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${Math.round(r.svc).toLocaleString('en-US')} ${r.unit} | ${Number.isNaN(r.ceiling) ? '—' : `${Math.round(r.ceiling).toLocaleString('en-US')} ${r.unit}`} | ${Number.isNaN(r.ratio) ? '—' : `${(r.ratio * 100).toFixed(1)}%`} | ${r.target} | ${r.extra ?? ''} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(join(root, '.bench'), { recursive: true });
  writeFileSync(
    join(root, '.bench/results.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, duration, rows }, null, 2)}\n`,
  );
} finally {
  ceiling.child.kill('SIGTERM');
  await node.stop('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
