import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, SvcClient, toHex, UNIT } from '../../sdk/index.js';
import type { P2pService } from '../../p2p/service.js';
import type { Chain } from '../../chain/chain.js';
import { LOCAL_JOBS } from '../../plugins/compute/index.js';
import { resultCommitment, type ReportedResult } from '../../plugins/oon/jobs/commitment.js';
import { readJob } from '../../plugins/oon/jobs/state.js';
import { openStore } from '../../kernel/storage/open.js';
import { Table } from '../../kernel/storage/layout.js';
import { startNodeProcess, type RunningNode } from '../helpers/cli.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { fixture } from '../helpers/wat.js';
import { plainDevnet, plainDevnetGenesisFile } from '../helpers/plain-devnet.js';

// A validator in this process and a compute node as its own process, so it can be killed (SIGKILL)
// and restarted on its data dir; a second provider (in process) registers when a test needs one.
let validator: TestNode;
let v: SvcClient;
let bootstrap: string;
const computeDir = tempDir();
let compute: RunningNode | undefined;
const requester = generateKeyPair();
/** A second wasm provider played by this test (its own key): it never runs a job it is not told to report. */
const M = generateKeyPair();

async function startCompute(): Promise<RunningNode> {
  // At debug level: the test watches for the line a job's start writes (`running job …`).
  compute = await startNodeProcess([
    '--genesis',
    plainDevnetGenesisFile(),
    '--role',
    'compute',
    '--data-dir',
    computeDir,
    '--bind',
    '127.0.0.1:0',
    '--bootstrap-peers',
    bootstrap,
    '--log-level',
    'debug',
  ]);
  await waitFor(
    async () => (await fetch(`${compute!.url}/health`)).status,
    (status) => status === 200,
    20_000,
    'the compute node to sync',
  );
  return compute;
}

const lines = (node: RunningNode): string[] => node.output().split('\n');

beforeAll(async () => {
  // 500 ms blocks: a commit window is 20 blocks (and 5 s), so ~10 s, which a compute node's restart
  // fits on a busy machine; at 200 ms a slow restart lost the race with the window, not the feature.
  validator = await startTestNode({ ...plainDevnet(), validator: { blockTime: 500 } });
  v = new SvcClient(validator.url);
  bootstrap = validator.node.service<P2pService>('p2p').listenAddresses[0]!;
  const node = await startCompute();
  const c = new SvcClient(node.url);
  const operator = (await c.nodeInfo()).operator;
  await v.waitForTransaction((await v.transfer(devnetKey('account', 0), operator, 'OGT', 2000n * UNIT)).hash);
  await waitFor(
    () => c.getBalance(operator).then((b) => b.ogt),
    (ogt) => ogt >= 2000n * UNIT,
    20_000,
    'the operator funds',
  );
  await c.oonRegisterNode({ operator, capabilities: ['wasm'], bond_ogt: 1000, max_concurrent_jobs: 2 });
  await waitFor(
    () => c.oonNodeStatus(),
    (status) => status.status === 'active',
    20_000,
    'the registration',
  );
  await v.waitForTransaction((await v.transfer(devnetKey('account', 1), requester.address, 'OMC', 100n * UNIT)).hash);
}, 120_000);
afterAll(async () => {
  await compute?.stop('SIGKILL');
  await validator?.stop();
});

describe('a compute provider that crashes', { timeout: 90_000 }, () => {
  it('opens a commitment it sent after a restart that lost its copy of the result: it runs the job again', async () => {
    // A second replica played by this test (its own key) holds the job in `assigned` after the compute
    // node commits, so the node can be killed between its commitment and its reveal.
    await v.waitForTransaction((await v.transfer(devnetKey('account', 3), M.address, 'OGT', 2000n * UNIT)).hash);
    const registered = await v.waitForTransaction(
      (
        await v.signAndSend(M, 'oon.register', {
          peerId: 'test-signer',
          bond: (1000n * UNIT).toString(),
          details: { capabilities: ['wasm'], maxConcurrentJobs: 1 },
        } as never)
      ).hash,
    );
    expect(registered.status).toBe('success');
    const operator = (await new SvcClient(compute!.url).nodeInfo()).operator;
    const input = new TextEncoder().encode('lost copy');
    const { jobId } = await v.submitJob(requester, {
      runtime: 'wasm',
      code: fixture('upper'),
      input,
      gasLimit: 1_000_000n,
      gasPrice: 0n,
      replicas: 2,
    });
    const record = () => readJob((key) => validator.node.service<Chain>('chain').state.get(key), jobId);
    await waitFor(
      record,
      (job) => job?.assignments.find((a) => a.provider === operator)?.commitment !== undefined,
      20_000,
      "the compute node's commitment",
    );
    await compute!.stop('SIGKILL');
    // The copy is lost: the node's store no longer has the job (as if killed before its write).
    const store = await openStore('rocksdb', computeDir);
    const copies = new Table(store.claim(LOCAL_JOBS.name, 'test'), LOCAL_JOBS);
    await copies.delNow(jobId);
    expect(await copies.get(jobId)).toBeUndefined();
    await store.close();
    const restarted = await startCompute();
    await waitFor(
      () => lines(restarted).some((line) => line.includes(`job ${jobId.slice(0, 10)}… ran`)),
      Boolean,
      20_000,
      'the job to run again',
    );
    // M reports the right result, so the two replicas agree only if the node's reveal opens its commitment.
    const estimate = await v.estimateJob({ runtime: 'wasm', code: fixture('upper'), input, gasLimit: 1_000_000n });
    const right: ReportedResult = {
      outputHash: estimate.outputHash,
      exit: estimate.exit,
      gasUsed: estimate.gasUsed,
      outputSize: estimate.outputSize,
    };
    const salt = toHex(randomBytes(32));
    expect(
      (
        await v.waitForTransaction(
          (
            await v.signAndSend(M, 'oon.commitResult', {
              jobId,
              commitment: resultCommitment(jobId, M.address, right, salt),
            } as never)
          ).hash,
        )
      ).status,
    ).toBe('success');
    await waitFor(
      record,
      (job) => job?.assignments.find((a) => a.provider === operator)?.reveal !== undefined,
      20_000,
      "the compute node's reveal",
    );
    expect(
      (
        await v.waitForTransaction(
          (
            await v.signAndSend(M, 'oon.revealResult', { jobId, ...right, salt, output: estimate.output } as never)
          ).hash,
        )
      ).status,
    ).toBe('success');
    const job = await v.waitForJob(jobId, { timeoutMs: 30_000 });
    expect(job).toMatchObject({ status: 'finalized', settledBy: 'agreement', attempts: 0, missedBy: [] });
    expect(Buffer.from(job.output!.slice(2), 'hex').toString()).toBe('LOST COPY');
    // What it serves is written again too.
    expect(Buffer.from(await (await fetch(`${restarted.url}/oon/jobs/${jobId}/output`)).arrayBuffer()).toString()).toBe(
      'LOST COPY',
    );
  });

  it('keeps the result it computed across a SIGKILL and reports it after a restart, within the deadline', async () => {
    // A generous gas limit gives a long commit window (it grows with the gas a job may use), so a slow restart still makes it.
    const { jobId } = await v.submitJob(requester, {
      runtime: 'wasm',
      code: fixture('upper'),
      input: new TextEncoder().encode('survives a crash'),
      gasLimit: 5_000_000_000n,
      gasPrice: 0n,
    });
    // Killed as soon as it has run the job: its result is in the store, its commitment may or may not have left.
    await waitFor(
      () => lines(compute!).some((line) => line.includes(`job ${jobId.slice(0, 10)}… ran`)),
      Boolean,
      20_000,
      'the job to run',
    );
    await compute!.stop('SIGKILL');
    await startCompute();
    const job = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job).toMatchObject({ status: 'finalized', attempts: 0, exit: 'exit:0', missedBy: [] });
    expect(Buffer.from(job.output!.slice(2), 'hex').toString()).toBe('SURVIVES A CRASH');
  });

  it('reassigns the job of a provider killed mid-run after its deadline; the dead provider loses 1%', async () => {
    // The test's own provider leaves first (an unbonding provider takes no job): the job may then only go
    // to the second node, which waits in the queue for it if the deadline passes before it registers.
    expect((await v.waitForTransaction((await v.signAndSend(M, 'oon.unregister', {})).hash)).status).toBe('success');
    const operator = (await new SvcClient(compute!.url).nodeInfo()).operator;
    const bondBefore = (await v.getBalance(operator)).bonded.compute!;
    // Long enough to be killed while it runs (most of a second of metered WASM), short beside its commit
    // window (5 s and 8 ns a gas), so the second provider finishes in time on a machine 10× slower.
    const { jobId } = await v.submitJob(requester, {
      runtime: 'wasm',
      code: fixture('spin'),
      gasLimit: 600_000_000n,
      gasPrice: 0n,
    });
    await waitFor(
      () => lines(compute!).some((line) => line.includes(`running job ${jobId.slice(0, 10)}`)),
      Boolean,
      20_000,
      'the job to start',
    );
    await compute!.stop('SIGKILL');
    compute = undefined;
    // Another provider takes the job once the first misses its deadline.
    const other = await startTestNode({
      ...plainDevnet(),
      role: 'compute',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [bootstrap] },
    });
    try {
      const o = new SvcClient(other.url);
      const otherOperator = other.node.keys.operator.address;
      await v.waitForTransaction((await v.transfer(devnetKey('account', 2), otherOperator, 'OGT', 2000n * UNIT)).hash);
      await waitFor(
        () => o.getBalance(otherOperator).then((b) => b.ogt),
        (ogt) => ogt >= 2000n * UNIT,
        20_000,
        'the second operator funds',
      );
      // A node registers only once synced (not_synced before): on a busy machine it may still be catching up here.
      await waitFor(
        () => fetch(`${other.url}/health`).then((r) => r.status),
        (status) => status === 200,
        20_000,
        'the second node to be synced',
      );
      await o.oonRegisterNode({
        operator: otherOperator,
        capabilities: ['wasm'],
        bond_ogt: 1000,
        max_concurrent_jobs: 2,
      });
      const job = await v.waitForJob(jobId, { timeoutMs: 60_000 }).catch(async (error: unknown) => {
        // Where the job stands and what the second provider said: why it was not reassigned or not finished.
        const said = other.logs.lines.filter((line) => !/block/.test(String(line.msg))).slice(-15);
        throw new Error(
          `${(error as Error).message}: ${JSON.stringify((error as { data?: unknown }).data)}\njob at head ${await v.blockNumber()}: ${JSON.stringify(await v.getJob(jobId), (_k, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}\n${said.map((line) => JSON.stringify(line)).join('\n')}`,
        );
      });
      expect(job).toMatchObject({
        status: 'finalized',
        attempts: 1,
        exit: 'out_of_gas',
        providers: [otherOperator],
        missedBy: [operator],
      });
      expect((await v.getBalance(operator)).bonded.compute).toBe(bondBefore - bondBefore / 100n);
    } finally {
      await other.stop();
    }
  });
});
