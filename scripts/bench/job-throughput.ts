// Job throughput: a validator and one compute node (max_concurrent_jobs 8), as processes; BENCH_JOBS
// (default 2,000) small WASI jobs pre-signed by 20 requesters are submitted at once (or at
// BENCH_JOB_RATE per second, in 20 batches a second: a steady load); measured from
// submission to the block that finalizes the last one, with svc_getBalance probed meanwhile.
// Block time BENCH_JOB_BLOCK_MS (default 25): a slot holds a job from its assignment to its
// commitment, at least one block, so 8 slots finish at most 8 jobs per block. Prints one JSON line:
// the end-to-end rate, the steady rate (jobs committed per second between the 10th and the 90th
// percentile: without the ramp of the submissions and the challenge window every job waits out at
// the end), `turnBlocks`, how many jobs held their slot for how many blocks, and `referenceMs`, a
// fixed workload timed before and after (machine-speed.ts: the machine's speed varies between runs).
import wabtFactory from 'wabt';
import WebSocket from 'ws';
import {
  devnetKey,
  generateKeyPair,
  jobPayload,
  rawTransaction,
  signTransaction,
  SvcClient,
  SvcWsClient,
  transferPayload,
  UNIT,
  type JobView,
  type KeyPair,
  type WebSocketConstructor,
} from '../../sdk/index.js';
import { benchDir, cleanUp, startBalanceProbe, startNode, submitAll, submitPaced } from './node-process.js';
import { referenceMs } from './machine-speed.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 2000);
const BLOCK_MS = process.env.BENCH_JOB_BLOCK_MS ?? '25';
const REQUESTERS = 20;
const RATE = process.env.BENCH_JOB_RATE === undefined ? undefined : Number(process.env.BENCH_JOB_RATE);

/** A small job: reads stdin, writes it back in upper case. */
const UPPER = `(module
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (local $n i32) (local $i i32) (local $c i32)
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 1024))
    (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 16)))
    (local.set $n (i32.load (i32.const 16)))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $c (i32.load8_u (i32.add (i32.const 64) (local.get $i))))
      (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
        (then (i32.store8 (i32.add (i32.const 64) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (i32.store (i32.const 4) (local.get $n))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 20)))))`;

try {
  const wabt = await wabtFactory();
  const parsed = wabt.parseWat('upper.wat', UPPER, {});
  const code = Uint8Array.from(parsed.toBinary({}).buffer);
  parsed.destroy();

  const referenceBefore = referenceMs();
  const validator = await startNode(['--role', 'validator', '--data-dir', benchDir(), '--block-time', BLOCK_MS]);
  const compute = await startNode(['--role', 'compute', '--data-dir', benchDir(), '--bootstrap-peers', validator.p2p]);
  const v = new SvcClient({ url: validator.url, timeoutMs: 120_000 });
  const c = new SvcClient({ url: compute.url, timeoutMs: 120_000 });
  const chainId = (await v.chainInfo()).chainId;

  // Setup, not measured: fund and register the provider, fund the requesters, sign every job.
  const operator = (await c.nodeInfo()).operator;
  const funder = devnetKey('account', 0);
  await v.waitForTransaction((await v.transfer(funder, operator, 'OGT', 2000n * UNIT)).hash);
  while ((await c.getBalance(operator)).ogt < 2000n * UNIT) await new Promise((resolve) => setTimeout(resolve, 50));
  await c.oonRegisterNode({ operator, capabilities: ['wasm'], bond_ogt: 1000, max_concurrent_jobs: 8 });
  while ((await c.oonNodeStatus()).status !== 'active') await new Promise((resolve) => setTimeout(resolve, 50));
  const requesters: KeyPair[] = Array.from({ length: REQUESTERS }, () => generateKeyPair());
  const funderNonce = await v.getNonce(funder.address);
  const funding = requesters.map((r, i) =>
    signTransaction(
      { chainId, kind: 'transfer', nonce: funderNonce + i, payload: transferPayload(r.address, 'OMC', 1000n * UNIT) },
      funder,
    ),
  );
  await submitAll(v, funding.map(rawTransaction));
  await v.waitForTransaction(funding.at(-1)!.hash);
  const jobs = Array.from({ length: JOBS }, (_, i) =>
    signTransaction(
      {
        chainId,
        kind: 'oon.submitJob',
        nonce: Math.floor(i / REQUESTERS),
        payload: jobPayload({
          runtime: 'wasm',
          code,
          input: new TextEncoder().encode(`job ${i}`),
          gasLimit: 100_000n,
          gasPrice: 1n,
        }),
      },
      requesters[i % REQUESTERS]!,
    ),
  );

  // svc_getBalance probes in their own processes, as in the transfers benchmark.
  const probes = await Promise.all([0, 1].map((p) => startBalanceProbe(validator.url, requesters[p]!.address, '5')));
  // Settled jobs arrive as `jobs` subscription events (polling the node for them would load it).
  const ws = new SvcWsClient({
    url: validator.url.replace('http', 'ws'),
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });
  // Heads first: the node sends a block's head before the job events of that block, so each job
  // event is known to come from the last head seen (its block and time).
  const heads = await ws.subscribe<{ height: number; timestamp: number }>('newHeads');
  let head = { height: 0, timestamp: 0 };
  heads.on((h) => (head = h));
  const events = await ws.subscribe<JobView>('jobs');
  const pending = new Set<string>(jobs.map((tx) => tx.hash));
  let lastFinalized = 0;
  /** Blocks from a job's assignment to its commitment: how many blocks a slot is held per job. */
  const turns = new Map<number, number>();
  const committedTimes: number[] = [];
  const finalizedTimes: number[] = [];
  const settled = new Promise<void>((resolve, reject) => {
    events.on((job) => {
      if (!pending.has(job.jobId)) return;
      if (job.status === 'committed' && job.assignedAt !== null) {
        turns.set(head.height - job.assignedAt, (turns.get(head.height - job.assignedAt) ?? 0) + 1);
        committedTimes.push(head.timestamp);
      }
      if (job.status !== 'finalized' && job.status !== 'failed' && job.status !== 'expired') return;
      if (job.status !== 'finalized') return reject(new Error(`job ${job.jobId} ${job.status}: ${job.reason}`));
      pending.delete(job.jobId);
      finalizedTimes.push(head.timestamp);
      lastFinalized = Math.max(lastFinalized, job.finalizedAt!);
      if (pending.size === 0) resolve();
    });
  });
  const startHeight = await v.blockNumber();
  const startedAt = Date.now();
  if (RATE === undefined) await submitAll(v, jobs.map(rawTransaction), 4, 'svc_oonSubmitJob');
  else await submitPaced(v, jobs.map(rawTransaction), RATE, 'svc_oonSubmitJob');
  const submittedMs = Date.now() - startedAt;
  await settled;
  ws.close();
  const endedAt = (await v.getBlockByNumber(lastFinalized)).timestamp;
  for (const probe of probes) probe.child.stdin!.end();
  const probeResults = await Promise.all(probes.map((p) => p.result));
  const seconds = (endedAt - startedAt) / 1000;
  // The steady rate: jobs committed between the 10th and the 90th percentile of them, per second of
  // that span. A job's commitment is when its slot turns; what follows is the same for every job (the
  // reveal, the challenge window, and settlement at the first block of the next whole second of block
  // time, which bunches finalizations by the second: over a short run too coarse a clock for a rate;
  // the steady rate of finalizations is printed too, for long runs).
  const steadyRate = (times: number[]): number => {
    times.sort((a, b) => a - b);
    const from = Math.floor(times.length * 0.1);
    const to = Math.floor(times.length * 0.9);
    return (to - from) / ((times[to]! - times[from]!) / 1000);
  };
  const steadyJobsPerSecond = steadyRate(committedTimes);
  const steadyFinalizedPerSecond = steadyRate(finalizedTimes);
  const referenceAfter = referenceMs();
  const turnBlocks = Object.fromEntries([...turns].sort((a, b) => a[0] - b[0]));
  process.stdout.write(
    `${JSON.stringify({ jobs: JOBS, blockMs: Number(BLOCK_MS), offeredJobsPerSecond: RATE ?? 'all at once', submitSeconds: submittedMs / 1000, seconds, jobsPerSecond: JOBS / seconds, steadyJobsPerSecond, steadyFinalizedPerSecond, turnBlocks, blocks: lastFinalized - startHeight, balanceCalls: probeResults.reduce((sum, r) => sum + r.calls, 0), balanceP99Ms: Math.max(...probeResults.map((r) => r.p99Ms)), referenceMs: [referenceBefore, referenceAfter] })}\n`,
  );
} catch (error) {
  process.stderr.write(`job-throughput: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
