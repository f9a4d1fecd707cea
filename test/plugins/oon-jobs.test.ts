import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  devnetKey,
  generateKeyPair,
  jobPayload,
  rawTransaction,
  signTransaction,
  SvcClient,
  SvcWsClient,
  UNIT,
  type JobView,
  type WebSocketConstructor,
} from '../../sdk/index.js';
import WebSocket from 'ws';
import type { P2pService } from '../../p2p/service.js';
import { executeJob } from '../../jobs/execute.js';
import { DEFAULT_JOB_LIMITS } from '../../jobs/spec.js';
import { startTestNode, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';
import { failure } from '../helpers/rpc-failure.js';
import type { Chain } from '../../chain/chain.js';
import { readJob } from '../../plugins/oon/jobs/state.js';
import { fixture } from '../helpers/wat.js';
import { run, SVC } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dirs.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A real devnet: a validator and two compute nodes, each registered as a compute provider.
let validator: TestNode;
let computeA: TestNode;
let computeB: TestNode;
let v: SvcClient;
const requester = generateKeyPair();
const GAS_PRICE = 1_000n;

async function registerProvider(node: TestNode, maxJobs: number): Promise<void> {
  const client = new SvcClient(node.url);
  const operator = node.node.keys.operator.address;
  await v.waitForTransaction((await v.transfer(devnetKey('account', 0), operator, 'OGT', 2000n * UNIT)).hash);
  await waitFor(
    () => client.getBalance(operator).then((b) => b.ogt),
    (ogt) => ogt >= 2000n * UNIT,
    20_000,
    'the operator funds to reach the compute node',
  );
  await client.oonRegisterNode({
    operator,
    capabilities: ['wasm', 'evm'],
    bond_ogt: 1000,
    max_concurrent_jobs: maxJobs,
  });
  await waitFor(
    () => client.oonNodeStatus(),
    (status) => status.status === 'active',
    20_000,
    'the registration to be mined',
  );
}

beforeAll(async () => {
  validator = await startTestNode({ ...plainDevnet(), validator: { blockTime: 200 } });
  v = new SvcClient(validator.url);
  const bootstrap = [validator.node.service<P2pService>('p2p').listenAddresses[0]!];
  const computeNode = () =>
    startTestNode({
      ...plainDevnet(),
      role: 'compute',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: bootstrap },
    });
  [computeA, computeB] = await Promise.all([computeNode(), computeNode()]);
  await waitFor(
    () => syncStatus(computeA).synced && syncStatus(computeB).synced,
    Boolean,
    20_000,
    'the compute nodes to sync',
  );
  await registerProvider(computeA, 2);
  await registerProvider(computeB, 2);
  await v.waitForTransaction((await v.transfer(devnetKey('account', 1), requester.address, 'OMC', 1000n * UNIT)).hash);
}, 120_000);
afterAll(async () => {
  await computeB?.stop();
  await computeA?.stop();
  await validator?.stop();
});

const upper = (input: string, replicas: 1 | 2 = 1) => ({
  runtime: 'wasm' as const,
  code: fixture('upper'),
  input: new TextEncoder().encode(input),
  gasLimit: 1_000_000n,
  gasPrice: GAS_PRICE,
  replicas,
});
const text = (hex: string | null): string => Buffer.from((hex ?? '0x').slice(2), 'hex').toString('utf8');

describe('compute jobs on a three-node devnet', () => {
  it('runs a WASI job on a provider and finalizes it: output, gas as any node computes it, fee paid, the rest refunded', async () => {
    const before = await v.getBalance(requester.address);
    const { jobId, txHash } = await v.submitJob(requester, upper('hello, jobs'));
    const submitted = await v.waitForTransaction(txHash);
    // Held from submission: the whole gas limit at its price.
    expect((await v.getJob(jobId)).escrow).toBe((1_000_000n * GAS_PRICE).toString());
    const job = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job).toMatchObject({
      status: 'finalized',
      exit: 'exit:0',
      settledBy: 'unchallenged',
      replicas: 1,
      escrow: '0',
    });
    // As it was after past blocks: none before its submission, held from it, settled from its finalization.
    expect((await failure(v.getJob(jobId, submitted.blockNumber - 1))).message).toBe('not_found');
    expect(await v.getJob(jobId, submitted.blockNumber)).toMatchObject({
      escrow: (1_000_000n * GAS_PRICE).toString(),
      finalizedAt: null,
      fee: null,
    });
    expect(await v.getJob(jobId, job.finalizedAt! - 1)).toMatchObject({
      status: 'committed',
      escrow: (1_000_000n * GAS_PRICE).toString(),
    });
    expect(await v.getJob(jobId, job.finalizedAt!)).toEqual(await v.getJob(jobId, 'latest'));
    expect(text(job.output)).toBe('HELLO, JOBS');
    const local = await executeJob({
      runtime: 'wasm',
      code: fixture('upper'),
      input: new TextEncoder().encode('hello, jobs'),
      args: ['job'],
      gasLimit: 1_000_000n,
      timestamp: 0,
      height: 0,
      seed: new Uint8Array(32),
      limits: DEFAULT_JOB_LIMITS,
    });
    expect(job.gasUsed).toBe(local.gasUsed.toString());
    expect(job.fee).toBe((BigInt(job.gasUsed!) * GAS_PRICE).toString());
    const after = await v.getBalance(requester.address);
    expect(before.omc - after.omc).toBe(BigInt(job.fee!));
    // Every node answers the same from its own state.
    expect(await new SvcClient(computeB.url).getJob(jobId)).toEqual(await v.getJob(jobId));
  });

  it('gives both replicas one outputHash and one gasUsed, and pays each', async () => {
    const { jobId } = await v.submitJob(requester, upper('two of us', 2));
    const job = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job).toMatchObject({ status: 'finalized', settledBy: 'agreement' });
    expect(new Set(job.providers)).toEqual(
      new Set([computeA.node.keys.operator.address, computeB.node.keys.operator.address]),
    );
    expect(job.fee).toBe((2n * BigInt(job.gasUsed!) * GAS_PRICE).toString());
  });

  it('ends an endless loop out of gas with gasUsed = gasLimit, while every node keeps answering', async () => {
    const { jobId } = await v.submitJob(requester, {
      runtime: 'wasm',
      code: fixture('spin'),
      gasLimit: 50_000_000n,
      gasPrice: 1n,
    });
    await v.waitForTransaction(jobId);
    let answered = 0;
    let job: JobView;
    do {
      await Promise.all(
        [v, new SvcClient(computeA.url), new SvcClient(computeB.url)].map((client) => client.blockNumber()),
      );
      answered += 3;
      job = await v.getJob(jobId);
    } while (job.status !== 'finalized' && job.status !== 'failed');
    expect(job).toMatchObject({ status: 'finalized', exit: 'out_of_gas', gasUsed: '50000000' });
    expect(answered).toBeGreaterThan(3);
  });

  it('traps a memory bomb and a recursion bomb at their caps on a node, which keeps answering', async () => {
    const a = new SvcClient(computeA.url);
    const [memory, recursion] = await Promise.all([
      a.estimateJob({ runtime: 'wasm', code: fixture('memory-bomb'), gasLimit: 100_000_000n }),
      a.estimateJob({ runtime: 'wasm', code: fixture('recursion-bomb'), gasLimit: 100_000_000n }),
    ]);
    expect(memory.exit).toBe('trap:unreachable');
    expect(BigInt(memory.gasUsed)).toBeGreaterThan(255n * 4096n);
    expect(recursion.exit).toBe('trap:call depth limit');
    expect(await a.blockNumber()).toBeGreaterThan(0);
  });

  it('answers already_known to a job submission replayed after it was mined', async () => {
    const tx = signTransaction(
      {
        chainId: (await v.chainInfo()).chainId,
        kind: 'oon.submitJob',
        nonce: await v.getNonce(requester.address),
        payload: jobPayload(upper('once')),
      },
      requester,
    );
    const raw = rawTransaction(tx);
    expect(await v.rpcCall('svc_oonSubmitJob', [raw])).toEqual({ jobId: tx.hash, txHash: tx.hash });
    await v.waitForTransaction(tx.hash);
    const replay = await failure(v.rpcCall('svc_oonSubmitJob', [raw]), 'replayed job');
    expect(replay.message).toBe('already_known');
    await v.waitForJob(tx.hash, { timeoutMs: 60_000 });
  });

  it('refuses another kind of transaction, or bytes that are no transaction, at svc_oonSubmitJob, and admits nothing', async () => {
    const nonce = await v.getNonce(requester.address);
    const transfer = signTransaction(
      {
        chainId: (await v.chainInfo()).chainId,
        kind: 'transfer',
        nonce,
        payload: { to: generateKeyPair().address, asset: 'OMC', amount: '1' },
      },
      requester,
    );
    const wrongKind = await failure(
      v.rpcCall('svc_oonSubmitJob', [rawTransaction(transfer)]),
      'a transfer sent as a job',
    );
    expect(wrongKind.message).toBe('invalid_params');
    expect(JSON.stringify(wrongKind.data)).toMatch(/not transfer/);
    expect((await failure(v.getTransaction(transfer.hash), 'the refused transfer')).message).toBe('not_found');
    expect(await v.getNonce(requester.address)).toBe(nonce);
    const garbage = await failure(v.rpcCall('svc_oonSubmitJob', ['0x1234']), 'bytes that are no transaction');
    expect(garbage.message).toBe('invalid_transaction');
  });

  it('refuses the same faulty job with the same contract-listed error on svc_oonSubmitJob, svc_sendRawTransaction and svc_oonEstimate', async () => {
    const chainId = (await v.chainInfo()).chainId;
    const nonce = await v.getNonce(requester.address);
    const good = jobPayload(upper('faults')) as Record<string, unknown>;
    const cases: {
      fault: string;
      payload: Record<string, unknown>;
      error: string;
      data: Record<string, unknown>;
      estimable: boolean;
    }[] = [
      {
        fault: 'an unknown runtime',
        payload: { ...good, runtime: 'python' },
        error: 'invalid_params',
        data: { field: 'runtime' },
        estimable: true,
      },
      {
        fault: 'code that is not hex',
        payload: { ...good, code: '0xzz' },
        error: 'invalid_params',
        data: { field: 'code' },
        estimable: true,
      },
      {
        fault: 'replicas outside 1-2',
        payload: { ...good, replicas: 3 },
        error: 'invalid_params',
        data: { field: 'replicas' },
        estimable: false,
      },
      {
        fault: 'inline code over the size limit',
        payload: { ...good, code: `0x${'00'.repeat(192 * 1024 + 1)}` },
        error: 'job_rejected',
        data: { field: 'code', limit: 'code' },
        estimable: true,
      },
      {
        fault: 'an input over the size limit',
        payload: { ...good, input: `0x${'00'.repeat(64 * 1024 + 1)}` },
        error: 'job_rejected',
        data: { field: 'input', limit: 'input' },
        estimable: true,
      },
    ];
    for (const { fault, payload, error, data, estimable } of cases) {
      const raw = rawTransaction(
        signTransaction({ chainId, kind: 'oon.submitJob', nonce, payload: payload as never }, requester),
      );
      const answers = [
        await failure(v.rpcCall('svc_oonSubmitJob', [raw]), fault),
        await failure(v.rpcCall('svc_sendRawTransaction', [raw]), fault),
      ];
      if (estimable) {
        const { runtime, code, input, args, gasLimit } = payload;
        answers.push(await failure(v.rpcCall('svc_oonEstimate', [{ runtime, code, input, args, gasLimit }]), fault));
      }
      for (const answer of answers) {
        expect(answer.message, fault).toBe(error);
        expect(answer.data, fault).toMatchObject(data);
      }
    }
    expect(await v.getNonce(requester.address)).toBe(nonce);
  });

  it('refuses a module with a refused feature at submission, naming it, and escrows nothing', async () => {
    const before = await v.getBalance(requester.address);
    const error = await failure(
      v.submitJob(requester, { runtime: 'wasm', code: fixture('simd'), gasLimit: 1000n, gasPrice: 1n }),
      'SIMD job',
    );
    expect(error.message).toBe('job_rejected');
    expect(JSON.stringify(error.data)).toMatch(/SIMD/);
    // Named as svc_oonEstimate names it: the feature in data.
    const estimated = await failure(
      v.estimateJob({ runtime: 'wasm', code: fixture('simd'), gasLimit: 1000n }),
      'SIMD estimate',
    );
    expect((error.data as { feature?: string }).feature).toBe((estimated.data as { feature?: string }).feature);
    expect((error.data as { feature?: string }).feature).toBeTruthy();
    expect((await v.getBalance(requester.address)).omc).toBe(before.omc);
  });

  it('streams one jobs event per status change to a WebSocket subscriber, from queued to finalized', async () => {
    const ws = new SvcWsClient({ url: validator.wsUrl, WebSocket: WebSocket as unknown as WebSocketConstructor });
    const statuses: string[] = [];
    try {
      const subscription = await ws.subscribe<JobView>('jobs', { requester: requester.address });
      const { jobId } = await v.submitJob(requester, upper('watched'));
      for await (const event of subscription) {
        if (event.jobId !== jobId) continue;
        statuses.push(event.status);
        if (event.status === 'finalized') break;
      }
      expect(statuses[0]).toMatch(/^(queued|assigned)$/);
      expect(statuses.at(-1)).toBe('finalized');
      expect(statuses.filter((s, i) => s === statuses[i - 1])).toEqual([]);
    } finally {
      ws.close();
    }
  });

  it('gives one outputHash and one gasUsed for the same job run 100 times on each of two nodes', async () => {
    const job = {
      runtime: 'wasm' as const,
      code: fixture('upper'),
      input: new TextEncoder().encode('same everywhere '.repeat(50)),
      gasLimit: 10_000_000n,
    };
    const results = new Set<string>();
    for (const node of [computeA, computeB]) {
      const client = new SvcClient(node.url);
      for (let i = 0; i < 100; i++) {
        const estimate = await client.estimateJob(job);
        results.add(`${estimate.outputHash} ${estimate.gasUsed} ${estimate.exit}`);
      }
    }
    expect(results.size).toBe(1);
  });

  it('never assigns a provider more than its max_concurrent_jobs (2) in any block, and runs every job', async () => {
    const chain = validator.node.service<Chain>('chain');
    const overloads: string[] = [];
    let sawWaiting = false;
    const off = validator.node.events.on('chain:block', () => {
      const read = (key: string) => chain.state.get(key);
      const running = new Map<string, number>();
      for (const [key] of chain.state.entriesUnder('oon/jobs/')) {
        const job = readJob(read, key.slice('oon/jobs/'.length))!;
        // Seen in the committed state of every block: a poll of each job could miss a wait of one block.
        if (job.reason?.includes('max_concurrent_jobs')) sawWaiting = true;
        for (const a of job.assignments) if (!a.commitment) running.set(a.provider, (running.get(a.provider) ?? 0) + 1);
      }
      for (const [provider, count] of running)
        if (count > 2) overloads.push(`block ${chain.head.height}: ${provider} holds ${count}`);
    });
    try {
      const nonce = await v.getNonce(requester.address);
      const submitted = await Promise.all(
        Array.from({ length: 16 }, (_, i) => v.submitJob(requester, upper(`job ${i}`), { nonce: nonce + i })),
      );
      const done = await Promise.all(
        submitted.map(async ({ jobId }) => {
          await v.waitForTransaction(jobId);
          for (;;) {
            const job = await v.getJob(jobId);
            if (job.status === 'finalized' || job.status === 'failed') return job;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }),
      );
      expect(done.map((job) => job.status)).toEqual(Array(16).fill('finalized'));
      expect(done.map((job) => text(job.output))).toEqual(Array.from({ length: 16 }, (_, i) => `JOB ${i}`));
    } finally {
      off();
    }
    expect(overloads).toEqual([]);
    expect(sawWaiting).toBe(true);
  });

  it('reports job slots in /health?verbose and job runs, run time and gas in /metrics', async () => {
    const health = (await (await fetch(`${computeA.url}/health?verbose`)).json()) as {
      jobSlots?: { used: number; max: number };
    };
    expect(health.jobSlots).toMatchObject({ max: 2 });
    const metrics = await (await fetch(`${computeA.url}/metrics`)).text();
    expect(metrics).toMatch(/^svc_compute_jobs_run_total\{runtime="wasm",outcome="exit"\} [1-9]/m);
    expect(metrics).toMatch(/^svc_compute_gas_used_total\{runtime="wasm"\} [1-9]/m);
    expect(metrics).toMatch(/^svc_compute_job_duration_seconds_count\{runtime="wasm"\} [1-9]/m);
    expect(metrics).toMatch(/^svc_oon_jobs\{status="queued"\} 0$/m);
  });

  it('submits, waits for, lists and reads a job from the svc CLI', async () => {
    const dir = tempDir();
    const code = join(dir, 'upper.wasm');
    writeFileSync(code, fixture('upper'));
    const submitted = await run(SVC, [
      '--url',
      validator.url,
      'job',
      'submit',
      '--code',
      code,
      '--input',
      'from the cli',
      '--gas-limit',
      '1000000',
      '--dev-account',
      '2',
      '--wait',
      '--json',
    ]);
    // Only the line that names what it waits for.
    expect(submitted.stderr).toMatch(
      /^(transaction|job|deal) \S+ submitted; waiting \(Ctrl-C stops waiting, not the (transaction|job|deal)\)\n$/,
    );
    const job = JSON.parse(submitted.stdout) as JobView;
    expect(job).toMatchObject({ status: 'finalized', exit: 'exit:0' });
    const output = await run(SVC, ['--url', validator.url, 'job', 'output', job.jobId]);
    expect(output.stdout).toBe('FROM THE CLI');
    const listed = await run(SVC, ['--url', validator.url, 'job', 'list', '--requester', job.requester]);
    expect(listed.stdout).toContain(job.jobId);
    const status = await run(SVC, ['--url', computeA.url, 'job', 'status', job.jobId]);
    expect(status.stdout).toContain('finalized');
    const bad = await run(SVC, [
      '--url',
      validator.url,
      'job',
      'submit',
      '--code',
      code,
      '--gas-limit',
      '1e6',
      '--dev-account',
      '2',
    ]);
    expect({ code: bad.code, stderr: bad.stderr.trim() }).toEqual({
      code: 2,
      stderr: 'svc: --gas-limit: expected a whole number, got "1e6"',
    });
  });

  it('runs an EVM job: the bytecode returns its known result', async () => {
    const sumToN = Uint8Array.from(
      Buffer.from('60003560005b811560165781019060019003906005565b60005260206000f3', 'hex'),
    );
    const input = Uint8Array.from(Buffer.from(100n.toString(16).padStart(64, '0'), 'hex'));
    const { jobId } = await v.submitJob(requester, {
      runtime: 'evm',
      code: sumToN,
      input,
      gasLimit: 1_000_000n,
      gasPrice: 1n,
    });
    const job = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job).toMatchObject({ status: 'finalized', exit: 'exit:0' });
    expect(BigInt(job.output!)).toBe(5050n);
  });
});
