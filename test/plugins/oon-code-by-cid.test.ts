import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  devnetKey,
  generateKeyPair,
  SvcClient,
  toHex,
  UNIT,
  type KeyPair,
  type UploadedObject,
} from '../../sdk/index.js';
import type { P2pService } from '../../p2p/service.js';
import type { Chain } from '../../chain/chain.js';
import { cidOfBytes } from '../../objects/small-cid.js';
import { resultCommitment, type ReportedResult } from '../../plugins/oon/jobs/commitment.js';
import { codeCidKey } from '../../plugins/oon/jobs/code.js';
import { JOB_PARAMS } from '../../plugins/oon/jobs/params.js';
import { readJob, type JobRecord } from '../../plugins/oon/jobs/state.js';
import { expectFollowerAgrees } from '../helpers/follower.js';
import { failure } from '../helpers/rpc-failure.js';
import { startTestNode, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';
import { fixture } from '../helpers/wat.js';
import { run, SVC } from '../helpers/cli.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A validator that is also a storage provider (it keeps the code objects, under deals), a compute
// node A that offers wasm and fetches code from it over libp2p, and a provider M played by this test
// with its own key (wasm and evm) that reports wrong results.
let validator: TestNode;
let computeA: TestNode;
let v: SvcClient;
let operatorA: string;
const M = generateKeyPair();
const requester = generateKeyPair();
const challenger = generateKeyPair();

const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');
const job = (jobId: string): JobRecord => readJob((key) => chainOf(validator).state.get(key), jobId)!;
const text = (value: string): Uint8Array => new TextEncoder().encode(value);

async function send(key: KeyPair, kind: string, payload: Record<string, unknown>): Promise<string> {
  const receipt = await v.waitForTransaction((await v.signAndSend(key, kind, payload as never)).hash);
  return receipt.status === 'success' ? 'success' : `${receipt.error?.name}: ${receipt.error?.reason}`;
}

/** Uploads bytes to the validator's store and keeps them there under an active deal; the object as uploaded. */
async function store(bytes: Uint8Array): Promise<UploadedObject> {
  const object = await v.uploadObject(bytes);
  const { dealId } = await v.createDeal(requester, {
    object,
    provider: validator.node.keys.operator.address,
    replicas: 1,
    durationBlocks: 10_000,
    price: 1n,
  });
  expect((await v.waitForDeal(dealId, { timeoutMs: 30_000 })).status).toBe('active');
  return object;
}

const wrong: ReportedResult = {
  outputHash: toHex(sha256(text('wrong'))),
  exit: 'exit:0',
  gasUsed: '1000',
  outputSize: 5,
};
let upperCid: string;

beforeAll(async () => {
  validator = await startTestNode({ ...plainDevnet(), validator: { blockTime: 200 } });
  v = new SvcClient(validator.url);
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
  const storageOperator = validator.node.keys.operator.address;
  for (const [to, asset, amount] of [
    [M.address, 'OGT', 2000n],
    [operatorA, 'OGT', 2000n],
    [storageOperator, 'OGT', 1000n],
    [requester.address, 'OMC', 1000n],
    [challenger.address, 'OMC', 10n],
  ] as const) {
    await v.waitForTransaction((await v.transfer(funder, to, asset, amount * UNIT)).hash);
  }
  await v.ompRegisterStorageNode({
    operator: storageOperator,
    storage_capacity_gb: 1,
    bond_ogt: 500,
    supported_formats: ['document'],
  });
  await new SvcClient(computeA.url).oonRegisterNode({
    operator: operatorA,
    capabilities: ['wasm'],
    bond_ogt: 1000,
    max_concurrent_jobs: 4,
  });
  await waitFor(
    async () => [(await v.ompStorageStatus()).status, (await v.oonListProviders()).length],
    ([storage, compute]) => storage === 'active' && compute === 1,
    20_000,
    'both registrations',
  );
  upperCid = (await store(fixture('upper'))).cid;
}, 120_000);
afterAll(async () => {
  await computeA?.stop();
  await validator?.stop();
});

describe('compute jobs whose code is a stored object', { timeout: 90_000 }, () => {
  it('runs a job named by the CID of a stored module: its provider fetches the module from the storage provider, checks it, and runs it', async () => {
    expect(
      await v.estimateJob({ runtime: 'wasm', codeCid: upperCid, input: text('estimated'), gasLimit: 1_000_000n }),
    ).toMatchObject({ exit: 'exit:0', outputSize: 9 });
    const { jobId } = await v.submitJob(requester, {
      runtime: 'wasm',
      codeCid: upperCid,
      input: text('by cid'),
      gasLimit: 1_000_000n,
      gasPrice: 1_000n,
    });
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'finalized', codeCid: upperCid, providers: [operatorA], exit: 'exit:0' });
    expect(Buffer.from(done.output!.slice(2), 'hex').toString()).toBe('BY CID');
    // The code stays off chain: no dispute needed it.
    expect(chainOf(validator).state.get(codeCidKey(upperCid))).toBeUndefined();
  });

  it('submits a job by CID from the svc CLI, and says how to give code when both or neither are given', async () => {
    const submitted = await run(SVC, [
      '--url',
      validator.url,
      'job',
      'submit',
      '--code-cid',
      upperCid,
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
    expect(JSON.parse(submitted.stdout)).toMatchObject({ status: 'finalized', codeCid: upperCid, exit: 'exit:0' });
    const neither = await run(SVC, [
      '--url',
      validator.url,
      'job',
      'submit',
      '--gas-limit',
      '1000000',
      '--dev-account',
      '2',
    ]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/give one of --code <file> .* and --code-cid <cid>/);
  });

  it('refuses code by a CID that is no CID, that no active deal keeps, or that is over the size limit, and escrows nothing', async () => {
    const big = await store(text('x'.repeat(JOB_PARAMS.maxCodeBytesByCid + 1)));
    const before = await v.getBalance(requester.address);
    const job = (codeCid: string) =>
      v.submitJob(requester, { runtime: 'wasm', codeCid, gasLimit: 1_000_000n, gasPrice: 1_000n });
    expect((await failure(job('definitely-not-a-cid'))).message).toBe('invalid_params');
    const unkept = await failure(job(cidOfBytes(randomBytes(100))));
    expect(unkept.message).toBe('job_rejected');
    expect(unkept.data?.reason).toMatch(/no active storage deal keeps/);
    expect((await failure(job(big.cid))).data?.reason).toMatch(
      new RegExp(`may be at most ${JOB_PARAMS.maxCodeBytesByCid} bytes`),
    );
    // Both at once (the SDK's types allow one): signed by hand.
    const both = await failure(
      v.signAndSend(requester, 'oon.submitJob', {
        runtime: 'wasm',
        code: toHex(fixture('upper')),
        codeCid: upperCid,
        input: '0x',
        args: ['job'],
        gasLimit: '1000000',
        gasPrice: '1000',
        replicas: 1,
      } as never),
    );
    expect(both.message).toBe('invalid_params');
    expect((await v.getBalance(requester.address)).omc).toBe(before.omc);
  });

  it('gives code a runtime refuses a `trap:code refused` result with no gas: nothing paid, all refunded', async () => {
    const notWasm = await store(text('this text is no WebAssembly module'));
    const before = await v.getBalance(requester.address);
    const { jobId } = await v.submitJob(requester, {
      runtime: 'wasm',
      codeCid: notWasm.cid,
      gasLimit: 1_000_000n,
      gasPrice: 1_000n,
    });
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'finalized', exit: 'trap:code refused', gasUsed: '0', fee: '0' });
    expect((await v.getBalance(requester.address)).omc).toBe(before.omc);
  });

  it('settles disagreeing replicas of a job by CID: the honest provider supplies the code, the chain re-executes it, the wrong one is slashed', async () => {
    expect(
      await send(M, 'oon.register', {
        peerId: 'test-signer',
        bond: (1000n * UNIT).toString(),
        details: { capabilities: ['wasm', 'evm'], maxConcurrentJobs: 4 },
      }),
    ).toBe('success');
    const { jobId } = await v.submitJob(requester, {
      runtime: 'wasm',
      codeCid: upperCid,
      input: text('who is right'),
      gasLimit: 1_000_000n,
      gasPrice: 1_000n,
      replicas: 2,
    });
    await waitFor(
      () => job(jobId),
      (record) => record?.assignments.length === 2,
      20_000,
      'both replicas assigned',
    );
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
    expect(await send(M, 'oon.revealResult', { jobId, ...wrong, salt, output: toHex(text('wrong')) })).toBe('success');
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({
      status: 'finalized',
      settledBy: 're-execution',
      fee: (BigInt(done.gasUsed!) * 1_000n).toString(),
    });
    expect(Buffer.from(done.output!.slice(2), 'hex').toString()).toBe('WHO IS RIGHT');
    expect(chainOf(validator).state.get(codeCidKey(upperCid))).toBeDefined();
    expect((await v.getBalance(M.address)).bonded.compute).toBe(900n * UNIT);
  });

  it('refunds a challenged job by CID whose code no one supplies in time, paying and slashing no one', async () => {
    // EVM bytecode as hex text (what `solc --bin` writes); only M offers evm, and M does not supply it.
    const sumToN = await store(text('0x60003560005b811560165781019060019003906005565b60005260206000f3\n'));
    const input = Uint8Array.from(Buffer.from(10n.toString(16).padStart(64, '0'), 'hex'));
    const before = await v.getBalance(requester.address);
    const { jobId } = await v.submitJob(requester, {
      runtime: 'evm',
      codeCid: sumToN.cid,
      input,
      gasLimit: 100_000n,
      gasPrice: 1_000n,
    });
    await waitFor(
      () => job(jobId),
      (record) => record?.assignments.some((a) => a.provider === M.address) ?? false,
      20_000,
      'the job assigned to M',
    );
    const salt = toHex(randomBytes(32));
    expect(
      await send(M, 'oon.commitResult', { jobId, commitment: resultCommitment(jobId, M.address, wrong, salt) }),
    ).toBe('success');
    expect(await send(M, 'oon.revealResult', { jobId, ...wrong, salt, output: toHex(text('wrong')) })).toBe('success');
    await waitFor(
      () => job(jobId).challengeBy,
      (by) => by !== undefined,
      20_000,
      'the challenge window',
    );
    const bond = (await v.getBalance(M.address)).bonded.compute;
    const challengerBefore = await v.getBalance(challenger.address);
    expect(await send(challenger, 'oon.challenge', { jobId })).toBe('success');
    const waiting = await waitFor(
      () => job(jobId),
      (record) => record?.codeBy !== undefined,
      20_000,
      'the dispute to wait for the code',
    );
    expect(waiting.reason).toMatch(/waiting for the code .* on chain \(oon\.supplyCode\)/);
    // Bytes that are not the object are refused.
    expect(await send(challenger, 'oon.supplyCode', { jobId, code: toHex(text('not the code')) })).toMatch(
      /^invalid_params: the bytes supplied are not the object/,
    );
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'failed', fee: null });
    expect(done.reason).toMatch(/was not supplied .* refunded, no one paid or slashed/);
    expect((await v.getBalance(requester.address)).omc).toBe(before.omc);
    expect((await v.getBalance(challenger.address)).omc).toBe(challengerBefore.omc);
    expect((await v.getBalance(M.address)).bonded.compute).toBe(bond);
  });

  it('brings a node synced from genesis to the same state root, jobs by CID and their re-execution included', async () => {
    await expectFollowerAgrees(validator, plainDevnet());
  });
});
