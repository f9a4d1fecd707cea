import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { decode, devnetKey, generateKeyPair, SvcClient, toHex, UNIT, type KeyPair } from '../../sdk/index.js';
import type { P2pService } from '../../p2p/service.js';
import type { Chain } from '../../chain/chain.js';
import type { Account } from '../../chain/state/accounts.js';
import { decodeAccount } from '../../chain/state/accounts.js';
import { resultCommitment, type ReportedResult } from '../../plugins/oon/jobs/commitment.js';
import { readJob, type JobRecord } from '../../plugins/oon/jobs/state.js';
import { JOB_PARAMS } from '../../plugins/oon/jobs/params.js';
import { expectFollowerAgrees } from '../helpers/follower.js';
import { startTestNode, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';
import { fixture } from '../helpers/wat.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A validator, one honest compute node (A), and a provider M played by this test with its own key:
// it stays silent, reports a wrong result, or copies A's commitment, as each test needs.
let validator: TestNode;
let computeA: TestNode;
let v: SvcClient;
let operatorA: string;
const M = generateKeyPair();
const requester = generateKeyPair();
const challenger = generateKeyPair();
const violations: string[] = [];
let totals: { omc: bigint; ogt: bigint } | undefined;

const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');
const job = (jobId: string): JobRecord => readJob((key) => chainOf(validator).state.get(key), jobId)!;

/** Every OMC and OGT on the chain: balances, bonds, job escrows and challenge deposits. */
function audit(chain: Chain): { omc: bigint; ogt: bigint } {
  let omc = 0n;
  let ogt = 0n;
  for (const [, raw] of chain.state.entriesUnder('accounts/')) {
    const account: Account = decodeAccount(raw);
    omc += account.omc;
    ogt += account.ogt + Object.values(account.bonded).reduce((sum, units) => sum + units, 0n);
  }
  for (const [key, raw] of chain.state.entriesUnder('oon/jobs/')) {
    const record = decode<JobRecord>(raw);
    omc += BigInt(record.escrow);
    if (record.challenge && record.status === 'committed') omc += BigInt(record.challenge.deposit);
    void key;
  }
  return { omc, ogt };
}

async function send(key: KeyPair, kind: string, payload: Record<string, unknown>): Promise<string> {
  const tx = await v.signAndSend(key, kind, payload as never);
  const receipt = await v.waitForTransaction(tx.hash);
  return receipt.status === 'success' ? 'success' : `${receipt.error?.name}: ${receipt.error?.reason}`;
}

const wrong: ReportedResult = {
  outputHash: toHex(sha256(new TextEncoder().encode('wrong'))),
  exit: 'exit:0',
  gasUsed: '1000',
  outputSize: 5,
};
const upper = (input: string, replicas: 1 | 2) => ({
  runtime: 'wasm' as const,
  code: fixture('upper'),
  input: new TextEncoder().encode(input),
  gasLimit: 1_000_000n,
  gasPrice: 1_000n,
  replicas,
});
const bondOf = async (address: string): Promise<bigint> => (await v.getBalance(address)).bonded.compute ?? 0n;
const assignedTo = (jobId: string, provider: string) =>
  waitFor(
    () => job(jobId),
    (record) => record?.assignments.some((a) => a.provider === provider) ?? false,
    20_000,
    `job assigned to ${provider}`,
  );

beforeAll(async () => {
  validator = await startTestNode({ ...plainDevnet(), validator: { blockTime: 200 } });
  v = new SvcClient(validator.url);
  // The conservation check runs on every block the validator commits.
  validator.node.events.on('chain:block', () => {
    const now = audit(chainOf(validator));
    totals ??= now;
    if (now.omc !== totals.omc || now.ogt !== totals.ogt)
      violations.push(
        `block ${chainOf(validator).head.height}: OMC ${now.omc} (was ${totals.omc}), OGT ${now.ogt} (was ${totals.ogt})`,
      );
  });
  computeA = await startTestNode({
    ...plainDevnet(),
    role: 'compute',
    p2p: {
      host: '127.0.0.1',
      port: 0,
      bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
    },
  });
  operatorA = computeA.node.keys.operator.address;
  await waitFor(() => syncStatus(computeA).synced, Boolean, 20_000, 'compute node A to sync');
  const funder = devnetKey('account', 0);
  for (const [to, asset, amount] of [
    [M.address, 'OGT', 2000n],
    [operatorA, 'OGT', 2000n],
    [requester.address, 'OMC', 1000n],
    [challenger.address, 'OMC', 10n],
  ] as const) {
    await v.waitForTransaction((await v.transfer(funder, to, asset, amount * UNIT)).hash);
  }
  expect(
    await send(M, 'oon.register', {
      peerId: 'test-signer',
      bond: (1000n * UNIT).toString(),
      details: { capabilities: ['wasm', 'evm'], maxConcurrentJobs: 4 },
    }),
  ).toBe('success');
}, 120_000);
afterAll(async () => {
  await computeA?.stop();
  await validator?.stop();
});

describe('compute job disputes and faults', { timeout: 90_000 }, () => {
  it('reassigns a job whose provider never commits: the silent provider loses 1%, the job finishes elsewhere', async () => {
    // M is the only provider when the job is assigned; A registers while M stays silent.
    const { jobId } = await v.submitJob(requester, upper('silent', 1));
    await assignedTo(jobId, M.address);
    const a = new SvcClient(computeA.url);
    await a.oonRegisterNode({ operator: operatorA, capabilities: ['wasm'], bond_ogt: 1000, max_concurrent_jobs: 4 });
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'finalized', attempts: 1, providers: [operatorA], exit: 'exit:0' });
    expect(Buffer.from(done.output!.slice(2), 'hex').toString()).toBe('SILENT');
    expect(await bondOf(M.address)).toBe(990n * UNIT);
  });

  it('settles disagreeing replicas by re-executing the job: the wrong provider loses 10%, the right one is paid', async () => {
    const { jobId } = await v.submitJob(requester, upper('who is right', 2));
    await assignedTo(jobId, M.address);
    const salt = toHex(randomBytes(32));
    expect(
      await send(M, 'oon.commitResult', { jobId, commitment: resultCommitment(jobId, M.address, wrong, salt) }),
    ).toBe('success');
    await waitFor(
      () => job(jobId).status,
      (status) => status === 'committed',
      20_000,
      'both commitments',
    );
    expect(
      await send(M, 'oon.revealResult', { jobId, ...wrong, salt, output: toHex(new TextEncoder().encode('wrong')) }),
    ).toBe('success');
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'finalized', settledBy: 're-execution', providers: [operatorA] });
    expect(Buffer.from(done.output!.slice(2), 'hex').toString()).toBe('WHO IS RIGHT');
    expect(done.fee).toBe((BigInt(done.gasUsed!) * 1_000n).toString());
    expect(await bondOf(M.address)).toBe(891n * UNIT);
  });

  it("makes a copied commitment fail at reveal: the copier can't open it and is slashed for not revealing", async () => {
    const { jobId } = await v.submitJob(requester, upper('copy me', 2));
    await assignedTo(jobId, M.address);
    const theirs = await waitFor(
      () => job(jobId).assignments.find((a) => a.provider === operatorA)?.commitment,
      Boolean,
      20_000,
      "A's commitment",
    );
    expect(await send(M, 'oon.commitResult', { jobId, commitment: theirs })).toBe('success');
    const reveal = await waitFor(
      () => job(jobId).assignments.find((a) => a.provider === operatorA)?.reveal,
      Boolean,
      20_000,
      "A's reveal",
    );
    const bondBefore = await bondOf(M.address);
    const { output, ...fields } = reveal!;
    // A's salt is not in the chain; even the right result with any salt does not open a commitment bound to A's address.
    const copied = await send(M, 'oon.revealResult', {
      jobId,
      outputHash: fields.outputHash,
      exit: fields.exit,
      gasUsed: fields.gasUsed,
      outputSize: fields.outputSize,
      salt: toHex(randomBytes(32)),
      output: toHex(output!),
    });
    expect(copied).toMatch(/^invalid_params: the reveal does not open/);
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'finalized', settledBy: 'unchallenged', providers: [operatorA] });
    expect(await bondOf(M.address)).toBe(bondBefore - (bondBefore * JOB_PARAMS.missSlashPerMille) / 1000n);
  });

  it('pays a challenger who proves a single wrong result: the provider loses 10%, the requester pays nothing', async () => {
    // Only M offers EVM, so it alone runs this job.
    const sumToN = Uint8Array.from(
      Buffer.from('60003560005b811560165781019060019003906005565b60005260206000f3', 'hex'),
    );
    const input = Uint8Array.from(Buffer.from(10n.toString(16).padStart(64, '0'), 'hex'));
    const before = await v.getBalance(requester.address);
    const { jobId } = await v.submitJob(requester, {
      runtime: 'evm',
      code: sumToN,
      input,
      gasLimit: 100_000n,
      gasPrice: 1_000n,
    });
    await assignedTo(jobId, M.address);
    const salt = toHex(randomBytes(32));
    expect(
      await send(M, 'oon.commitResult', { jobId, commitment: resultCommitment(jobId, M.address, wrong, salt) }),
    ).toBe('success');
    expect(
      await send(M, 'oon.revealResult', { jobId, ...wrong, salt, output: toHex(new TextEncoder().encode('wrong')) }),
    ).toBe('success');
    await waitFor(
      () => job(jobId).challengeBy,
      (by) => by !== undefined,
      20_000,
      'the challenge window',
    );
    const bondBefore = await bondOf(M.address);
    const challengerBefore = await v.getBalance(challenger.address);
    expect(await send(challenger, 'oon.challenge', { jobId })).toBe('success');
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'finalized', settledBy: 're-execution', fee: '0', providers: [] });
    expect(BigInt(done.output!)).toBe(55n);
    const slashed = (bondBefore * JOB_PARAMS.wrongSlashPerMille) / 1000n;
    expect(await bondOf(M.address)).toBe(bondBefore - slashed);
    const challengerAfter = await v.getBalance(challenger.address);
    expect(challengerAfter.omc).toBe(challengerBefore.omc);
    expect(challengerAfter.ogt - challengerBefore.ogt).toBe(slashed);
    expect((await v.getBalance(requester.address)).omc).toBe(before.omc);
  });

  it('applies a report of several jobs whole or not at all: commitments first, so a single-replica job is committed and revealed in one report', async () => {
    // Only M offers EVM: both jobs are M's.
    const sumToN = Uint8Array.from(
      Buffer.from('60003560005b811560165781019060019003906005565b60005260206000f3', 'hex'),
    );
    const evmJob = (n: bigint) => ({
      runtime: 'evm' as const,
      code: sumToN,
      input: Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex')),
      gasLimit: 100_000n,
      gasPrice: 1_000n,
    });
    const first = await v.submitJob(requester, evmJob(4n));
    const second = await v.submitJob(requester, evmJob(5n));
    await assignedTo(first.jobId, M.address);
    await assignedTo(second.jobId, M.address);
    const reports = await Promise.all(
      [first, second].map(async ({ jobId }, i) => {
        const estimate = await v.estimateJob(evmJob(BigInt(4 + i)));
        const result: ReportedResult = {
          outputHash: estimate.outputHash,
          exit: estimate.exit,
          gasUsed: estimate.gasUsed,
          outputSize: estimate.outputSize,
        };
        const salt = toHex(randomBytes(32));
        return {
          commit: { jobId, commitment: resultCommitment(jobId, M.address, result, salt) },
          reveal: { jobId, ...result, salt, output: estimate.output },
        };
      }),
    );
    const [a, b] = reports as [(typeof reports)[0], (typeof reports)[0]];
    // A reveal before its commitment fails the report, and the commitment before it is undone with it.
    expect(await send(M, 'oon.reportResults', { commits: [a.commit], reveals: [a.reveal, b.reveal] })).toBe(
      `invalid_params: ${M.address} has no commitment on job ${second.jobId}`,
    );
    expect(job(first.jobId).assignments[0]!.commitment).toBeUndefined();
    expect(job(first.jobId).status).toBe('assigned');
    // What no state could make valid is refused at submission.
    await expect(send(M, 'oon.reportResults', { commits: [a.commit, a.commit], reveals: [] })).rejects.toMatchObject({
      message: 'invalid_params',
      data: { reason: `job ${first.jobId} appears twice in one list of the report` },
    });
    await expect(send(M, 'oon.reportResults', { commits: [], reveals: [] })).rejects.toMatchObject({
      message: 'invalid_params',
      data: { reason: 'a report carries at least one commitment or reveal' },
    });
    expect(await send(M, 'oon.reportResults', { commits: [a.commit, b.commit], reveals: [a.reveal, b.reveal] })).toBe(
      'success',
    );
    for (const [{ jobId }, n] of [
      [first, 4n],
      [second, 5n],
    ] as const) {
      const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
      expect(done).toMatchObject({ status: 'finalized', settledBy: 'unchallenged', providers: [M.address] });
      expect(BigInt(done.output!)).toBe((n * (n + 1n)) / 2n);
    }
  });

  it('conserved OMC and OGT in every block: balances, bonds, escrows and deposits sum to the same', () => {
    expect(totals).toBeDefined();
    expect(violations).toEqual([]);
  });

  it('brings a node synced from genesis to the same state root, re-executed disputes included', async () => {
    await expectFollowerAgrees(validator, plainDevnet());
  });
});
