import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_KIND } from '../../chain/system-transactions.js';
import {
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  encodeFunctionData,
  http,
  toFunctionSelector,
  toHex as viemHex,
  type Abi,
  type Address,
  type Chain,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { accountAddress, devnetKey, generateKeyPair, SvcClient, toHex, UNIT } from '../../sdk/index.js';
import type { Chain as SvcChain } from '../../chain/chain.js';
import { decodeAccount } from '../../chain/state/accounts.js';
import { decode } from '../../sdk/encoding.js';
import type { DealRecord } from '../../plugins/omp/deals/state.js';
import { readJob, type JobRecord } from '../../plugins/oon/jobs/state.js';
import { resultCommitment, type ReportedResult } from '../../plugins/oon/jobs/commitment.js';
import type { P2pService } from '../../p2p/service.js';
import { startTestNode, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';
import { expectFollowerAgrees } from '../helpers/follower.js';
import { contracts } from '../helpers/contracts.js';
import { fixture } from '../helpers/wat.js';
import { TEST_KEY_0 } from '../helpers/foundry.js';
import { OON_ABI, OON_PRECOMPILE_ADDRESS } from '../../plugins/oon/precompile.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A validator (also a storage provider) and a compute provider, as real nodes; contracts deployed and
// called with viem use the OON, OMP and OGT precompiles.
let validator: TestNode;
let compute: TestNode;
let v: SvcClient;
let chain: Chain;
const artifact = (name: string): { abi: Abi; bytecode: Hex } =>
  contracts()[name] as unknown as { abi: Abi; bytecode: Hex };
const GAS_PRICE = 1_000n;
/** The CID of the job module `upper`, stored on the validator under a deal. */
let upperCid: string;
/** OMC on the validator after each block: in accounts, and held in job and deal escrows; and each block's transactions. */
const supply = new Map<
  number,
  { total: bigint; txs: { hash: string; kind: string; status: string; gasUsed?: number }[] }
>();

function omcHeld(node: TestNode): bigint {
  const state = node.node.service<SvcChain>('chain').state;
  let total = 0n;
  for (const [, bytes] of state.entriesUnder('accounts/')) total += decodeAccount(bytes).omc;
  for (const [, bytes] of state.entriesUnder('oon/jobs/')) total += BigInt(decode<JobRecord>(bytes).escrow);
  for (const [, bytes] of state.entriesUnder('omp/deals/')) total += BigInt(decode<DealRecord>(bytes).escrow);
  return total;
}

const clients = () => ({
  publicClient: createPublicClient({ chain, transport: http(validator.url), pollingInterval: 50 }),
  wallet: createWalletClient({ chain, transport: http(validator.url), account: privateKeyToAccount(TEST_KEY_0) }),
});

async function deploy(name: string, value = 0n, args: unknown[] = []): Promise<Address> {
  const { publicClient, wallet } = clients();
  const { abi, bytecode } = artifact(name);
  const hash = await wallet.deployContract({ abi, bytecode, value, args });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt.contractAddress!;
}

beforeAll(async () => {
  validator = await startTestNode({ ...plainDevnet(), validator: { blockTime: 200 } });
  v = new SvcClient(validator.url);
  validator.node.events.on('chain:block', ({ height, receipts }) => {
    supply.set(height, {
      total: omcHeld(validator),
      txs: receipts.map((r) => ({
        hash: r.transactionHash,
        kind: r.kind,
        status: r.status,
        ...(r.gasUsed !== undefined ? { gasUsed: r.gasUsed } : {}),
      })),
    });
  });
  chain = defineChain({
    id: 0x737663,
    name: 'svc devnet',
    nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
    rpcUrls: { default: { http: [validator.url] } },
  });
  compute = await startTestNode({
    ...plainDevnet(),
    role: 'compute',
    p2p: {
      host: '127.0.0.1',
      port: 0,
      bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
    },
  });
  await waitFor(() => syncStatus(compute).synced, Boolean, 20_000, 'the compute node to sync');
  const c = new SvcClient(compute.url);
  const operator = compute.node.keys.operator.address;
  await v.waitForTransaction((await v.transfer(devnetKey('account', 0), operator, 'OGT', 2000n * UNIT)).hash);
  await waitFor(
    () => c.getBalance(operator).then((b) => b.ogt),
    (ogt) => ogt >= 2000n * UNIT,
    20_000,
    'the operator funds to reach the compute node',
  );
  await c.oonRegisterNode({ operator, capabilities: ['wasm', 'evm'], bond_ogt: 1000, max_concurrent_jobs: 2 });
  await waitFor(
    () => c.oonNodeStatus(),
    (status) => status.status === 'active',
    20_000,
    'the registration to be mined',
  );
  // The validator stores objects too: the job's module is one, kept under a deal.
  const storageOperator = validator.node.keys.operator.address;
  await v.waitForTransaction((await v.transfer(devnetKey('account', 0), storageOperator, 'OGT', 1000n * UNIT)).hash);
  await v.ompRegisterStorageNode({
    operator: storageOperator,
    storage_capacity_gb: 1,
    bond_ogt: 500,
    supported_formats: ['document'],
  });
  await waitFor(
    () => v.ompStorageStatus(),
    (status) => status.status === 'active',
    20_000,
    'the storage registration',
  );
  const object = await v.uploadObject(fixture('upper'));
  const { dealId } = await v.createDeal(devnetKey('account', 1), {
    object,
    provider: storageOperator,
    replicas: 1,
    durationBlocks: 10_000,
    price: 1n,
  });
  expect((await v.waitForDeal(dealId, { timeoutMs: 30_000 })).status).toBe('active');
  upperCid = object.cid;
}, 120_000);
afterAll(async () => {
  await compute?.stop();
  await validator?.stop();
});

describe('the OON, OMP and OGT precompiles', { timeout: 120_000 }, () => {
  it('lets a contract pay for a WASM job stored as an object from its OMC; the chain calls it back with the verified output, and eth_call reads it', async () => {
    const { publicClient, wallet } = clients();
    const { abi } = artifact('WordCount');
    const contract = await deploy('WordCount', 10n * UNIT);
    const svcContract = accountAddress(contract);
    const before = (await v.getBalance(svcContract)).omc;
    const hash = await wallet.writeContract({
      address: contract,
      abi,
      functionName: 'count',
      args: [upperCid, '0x', viemHex(new TextEncoder().encode('count me')), 1_000_000n, GAS_PRICE, 1],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const jobId = (await publicClient.readContract({ address: contract, abi, functionName: 'lastJob' })) as Hex;
    // Escrowed from the contract: the job's gas and its callback's, at the job's price.
    const escrow = 1_000_000n * GAS_PRICE + 200_000n * GAS_PRICE;
    expect((await v.getBalance(svcContract)).omc).toBe(before - escrow);
    expect(await v.getJob(jobId)).toMatchObject({
      requester: svcContract,
      escrow: escrow.toString(),
      callback: { selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), gasLimit: '200000', status: null },
    });
    const job = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job).toMatchObject({
      status: 'finalized',
      exit: 'exit:0',
      escrow: '0',
      codeCid: upperCid,
      providers: [compute.node.keys.operator.address],
    });
    // The callback ran in the block that finalized the job, and kept the output.
    expect(job.callback).toMatchObject({ status: 'success', calledAt: job.finalizedAt, revert: null });
    const answer = (await publicClient.readContract({
      address: contract,
      abi,
      functionName: 'answers',
      args: [jobId],
    })) as Hex;
    expect(Buffer.from(answer.slice(2), 'hex').toString()).toBe('COUNT ME');
    // The job's fee and the callback's gas left the contract; the rest came back.
    const callbackFee = BigInt(job.callback!.gasUsed!) * GAS_PRICE;
    expect((await v.getBalance(svcContract)).omc).toBe(before - BigInt(job.fee!) - callbackFee);
    // jobStatus from eth_call answers what svc_oonGetJob does.
    const [status, requester, exit, outputHash, gasUsed, fee, output] = (await publicClient.readContract({
      address: OON_PRECOMPILE_ADDRESS,
      abi: OON_ABI,
      functionName: 'jobStatus',
      args: [jobId],
    })) as [number, Address, string, Hex, bigint, bigint, Hex];
    expect({
      status,
      requester: requester.toLowerCase(),
      exit,
      outputHash,
      gasUsed: gasUsed.toString(),
      fee: fee.toString(),
      output,
    }).toEqual({
      status: 4,
      requester: contract.toLowerCase(),
      exit: 'exit:0',
      outputHash: job.outputHash,
      gasUsed: job.gasUsed,
      fee: job.fee,
      output: job.output,
    });
  });

  /** Sends a call of the probe and waits for it to be mined. */
  async function probeCall(address: Address, functionName: string, args: unknown[]): Promise<void> {
    const { publicClient, wallet } = clients();
    const hash = await wallet.writeContract({ address, abi: artifact('JobProbe').abi, functionName, args });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
  }
  const read = <T>(address: Address, functionName: string, args: unknown[] = []): Promise<T> =>
    clients().publicClient.readContract({ address, abi: artifact('JobProbe').abi, functionName, args }) as Promise<T>;
  const ON_DONE = toFunctionSelector('onDone(bytes32,uint8,string,bytes32,bytes)');
  const upper = viemHex(fixture('upper'));

  it('records a callback that reverts, runs out of gas or finds no such function, and a contract with no code left; calls none of them twice; refunds the rest of the escrow', async () => {
    // One after another: one wallet's transactions take its nonces in turn.
    const reverting = await deploy('JobProbe', UNIT);
    const burning = await deploy('JobProbe', UNIT);
    const noFunction = await deploy('JobProbe', UNIT);
    await probeCall(reverting, 'setMode', [1]);
    await probeCall(burning, 'setMode', [2]);
    const before = await Promise.all(
      [reverting, burning, noFunction].map(async (a) => (await v.getBalance(accountAddress(a))).omc),
    );
    await probeCall(reverting, 'submit', [upper, '0x61', 1_000_000n, GAS_PRICE, 1, ON_DONE, 100_000n]);
    await probeCall(burning, 'submit', [upper, '0x62', 1_000_000n, GAS_PRICE, 1, ON_DONE, 100_000n]);
    await probeCall(noFunction, 'submit', [upper, '0x63', 1_000_000n, GAS_PRICE, 1, '0xdeadbeef', 100_000n]);
    // Its constructor submits a job and self-destructs in the same transaction.
    const oneShot = await clients().wallet.deployContract({
      abi: artifact('OneShot').abi,
      bytecode: artifact('OneShot').bytecode,
      args: [upper],
      value: UNIT,
    });
    const deployed = await clients().publicClient.waitForTransactionReceipt({ hash: oneShot });
    expect(deployed.status).toBe('success');
    const ids = await Promise.all([reverting, burning, noFunction].map((a) => read<Hex>(a, 'lastJob')));
    // The address it was created at, though no code stays there.
    const oneShotJob = (await v.listJobs({ requester: accountAddress(deployed.contractAddress!) })).jobs[0]!.jobId;
    const done = await Promise.all([...ids, oneShotJob].map((id) => v.waitForJob(id, { timeoutMs: 60_000 })));
    for (const job of done) expect(job.status).toBe('finalized');
    expect(done.map((job) => job.callback!.status)).toEqual(['reverted', 'out_of_gas', 'reverted', 'no_code']);
    expect(done[0]!.callback!.revert).toContain('probe says no');
    expect(done[1]!.callback!.gasUsed).toBe('100000');
    expect(done[3]!.callback!.gasUsed).toBe('0');
    for (const job of done) expect(job.callback!.calledAt).toBe(job.finalizedAt);
    // The chain goes on, and nothing is called again.
    const height = await v.blockNumber();
    await waitFor(
      () => v.blockNumber(),
      (h) => h >= height + 5,
      20_000,
      'five more blocks',
    );
    for (const job of done) expect((await v.getJob(job.jobId)).callback).toEqual(job.callback);
    for (const probe of [reverting, burning, noFunction]) expect(await read<bigint>(probe, 'calls')).toBe(0n);
    // What each paid: the job's fee and its callback's gas at the job's price; the rest of the escrow came back.
    for (const [i, probe] of [reverting, burning, noFunction].entries()) {
      const job = done[i]!;
      expect((await v.getBalance(accountAddress(probe))).omc).toBe(
        before[i]! - BigInt(job.fee!) - BigInt(job.callback!.gasUsed!) * GAS_PRICE,
      );
    }
  });

  it('lets a callback submit another job, which is called back in turn; stops a contract that submits jobs in a loop when its OMC runs out; reverts a malformed call with a reason', async () => {
    const chaining = await deploy('JobProbe', UNIT);
    await probeCall(chaining, 'setMode', [3]);
    await probeCall(chaining, 'submit', [
      upper,
      viemHex(new TextEncoder().encode('first')),
      1_000_000n,
      GAS_PRICE,
      1,
      ON_DONE,
      1_000_000n,
    ]);
    const first = await v.waitForJob(await read<Hex>(chaining, 'lastJob'), { timeoutMs: 60_000 });
    expect(first.callback!.status).toBe('success');
    const chained = await read<Hex>(chaining, 'chained');
    expect(chained).not.toBe(`0x${'0'.repeat(64)}`);
    // The second job's input is the first one's output; its callback ran once, and submitted nothing more.
    const second = await v.waitForJob(chained, { timeoutMs: 60_000 });
    expect(second).toMatchObject({
      status: 'finalized',
      requester: accountAddress(chaining),
      callback: { status: 'success' },
    });
    expect(Buffer.from(second.output!.slice(2), 'hex').toString()).toBe('FIRST');
    expect(await read<bigint>(chaining, 'calls')).toBe(2n);
    expect(await read<Hex>(chaining, 'chained')).toBe(chained);

    // Funded for five and a half jobs' escrows: five are made, then the loop stops at the refusal.
    const escrow = 1_000_000n * GAS_PRICE;
    const looping = await deploy('JobProbe', escrow * 5n + escrow / 2n);
    await probeCall(looping, 'submitMany', [upper, 1_000_000n, GAS_PRICE, 1000n]);
    const { jobs } = await v.listJobs({ requester: accountAddress(looping) });
    expect(jobs).toHaveLength(5);
    expect((await v.getBalance(accountAddress(looping))).omc).toBe(escrow / 2n);

    // Bytes that are no call of the precompile, and a submission the job rules refuse: reverted, with why.
    const { result } = await clients().publicClient.simulateContract({
      address: looping,
      abi: artifact('JobProbe').abi,
      functionName: 'raw',
      args: ['0x12345678'],
      account: privateKeyToAccount(TEST_KEY_0),
    });
    const [ok, data] = result as [boolean, Hex];
    expect(ok).toBe(false);
    expect(
      decodeErrorResult({
        abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }],
        data,
      }).args[0],
    ).toMatch(/^OON: invalid_params: the input is not a call of submitJob/);
    // A submission through STATICCALL or DELEGATECALL: refused, saying why.
    const submission = encodeFunctionData({
      abi: OON_ABI,
      functionName: 'submitJob',
      args: [
        {
          runtime: 'wasm',
          code: upper,
          codeCid: '',
          input: '0x',
          args: [],
          gasLimit: 1_000_000n,
          gasPrice: GAS_PRICE,
          replicas: 1,
          callback: '0x00000000',
          callbackGasLimit: 0n,
        },
      ],
    });
    const reason = (data: Hex): string =>
      decodeErrorResult({
        abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }],
        data,
      }).args[0] as string;
    const [staticOk, staticResult] = (await clients().publicClient.readContract({
      address: looping,
      abi: artifact('JobProbe').abi,
      functionName: 'staticRaw',
      args: [submission],
    })) as [boolean, Hex];
    expect(staticOk).toBe(false);
    expect(reason(staticResult)).toMatch(/^OON: submitJob changes state: it cannot be called in a static context/);
    const { result: delegated } = await clients().publicClient.simulateContract({
      address: looping,
      abi: artifact('JobProbe').abi,
      functionName: 'delegateRaw',
      args: [submission],
      account: privateKeyToAccount(TEST_KEY_0),
    });
    expect((delegated as [boolean, Hex])[0]).toBe(false);
    expect(reason((delegated as [boolean, Hex])[1])).toMatch(/^OON: submitJob is called directly/);
    const refused = await clients()
      .publicClient.simulateContract({
        address: chaining,
        abi: artifact('JobProbe').abi,
        functionName: 'submit',
        args: ['0x0061736d', '0x', 1_000_000n, GAS_PRICE, 3, ON_DONE, 100_000n],
        account: privateKeyToAccount(TEST_KEY_0),
      })
      .catch((error: Error) => error);
    expect(String(refused)).toMatch(/OON: invalid_params: replicas must be one of 1, 2/);
  });

  it('answers objectInfo, dealStatus and ogtBalanceOf to a contract as svc_ompGetObject, svc_ompGetDeal and svc_getBalance do; a deal a contract makes is accepted, proven and paid like any other, and still answered once closed', async () => {
    const { abi } = artifact('StorageProbe');
    const probe = await deploy('StorageProbe', UNIT);
    const { publicClient, wallet } = clients();
    const read = <T>(functionName: string, args: unknown[]): Promise<T> =>
      publicClient.readContract({ address: probe, abi, functionName, args }) as Promise<T>;
    const evm = (address: string): string => `0x${address.slice(4)}`;
    const object = await v.getObject(upperCid);
    const [size, mediaType, format, deals, providers] = await read<[bigint, string, string, Hex[], Address[]]>(
      'object',
      [upperCid],
    );
    // A contract sees the active deals only (svc_ompGetObject lists them all).
    const statuses = await Promise.all(object.deals.map(async (id) => (await v.getDeal(id)).status));
    const activeDeals = object.deals.filter((_, i) => statuses[i] === 'active');
    expect({ size: Number(size), mediaType, format, deals, providers: providers.map((p) => p.toLowerCase()) }).toEqual({
      size: object.size,
      mediaType: object.mediaType,
      format: object.format,
      deals: activeDeals,
      providers: object.providers.map(evm),
    });
    await expect(read('object', ['bafkreiaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'])).rejects.toThrow(
      /OMP: not_found/,
    );

    // A deal the contract makes for an object uploaded to the validator, paid from its OMC.
    const uploaded = await v.uploadObject(new TextEncoder().encode('a document the contract keeps alive'));
    const before = (await v.getBalance(accountAddress(probe))).omc;
    const request = {
      cid: uploaded.cid,
      size: BigInt(uploaded.size),
      root: uploaded.root as Hex,
      format: uploaded.format,
      mediaType: uploaded.mediaType,
      replicas: 1,
      durationBlocks: 20n,
      price: 1_000_000n,
      provider: evm(validator.node.keys.operator.address) as Address,
    };
    const hash = await wallet.writeContract({ address: probe, abi, functionName: 'store', args: [request] });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    const dealId = await read<Hex>('lastDeal', []);
    expect((await v.getBalance(accountAddress(probe))).omc).toBe(before - 1_000_000n);
    const active = await v.waitForDeal(dealId, { timeoutMs: 60_000 });
    expect(active).toMatchObject({ status: 'active', client: accountAddress(probe), cid: uploaded.cid });
    const status = async () => {
      // Both at one block: a proof may be paid between two reads at the head.
      const at = await v.blockNumber();
      const [code, client, cid, dealSize, replicas, startBlock, endBlock, price, escrow, paid] =
        (await publicClient.readContract({
          address: probe,
          abi,
          functionName: 'deal',
          args: [dealId],
          blockNumber: BigInt(at),
        })) as [number, Address, string, bigint, number, bigint, bigint, bigint, bigint, bigint];
      const deal = await v.getDeal(dealId, at);
      expect({
        client: client.toLowerCase(),
        cid,
        size: Number(dealSize),
        replicas,
        startBlock: Number(startBlock),
        endBlock: Number(endBlock),
        price: price.toString(),
        escrow: escrow.toString(),
        paid: paid.toString(),
      }).toEqual({
        client: probe.toLowerCase(),
        cid: deal.cid,
        size: deal.size,
        replicas: deal.replicas,
        startBlock: deal.startBlock,
        endBlock: deal.endBlock,
        price: deal.price,
        escrow: deal.escrow,
        paid: deal.paid,
      });
      return { code, deal };
    };
    expect((await status()).code).toBe(2);
    const dealsOf = async (cid: string) => (await read<[bigint, string, string, Hex[], Address[]]>('object', [cid]))[3];
    expect(await dealsOf(uploaded.cid)).toEqual([dealId]);
    // Proven and paid through its term, then closed: the precompile still answers it.
    await waitFor(
      () => v.getDeal(dealId),
      (deal) => deal.status === 'closed',
      60_000,
      "the contract's deal to close",
    );
    const closed = await status();
    expect(closed.code).toBe(3);
    expect(closed.deal).toMatchObject({ paid: '1000000', escrow: '0' });
    expect(closed.deal.lastProof).not.toBeNull();
    // Closed: no longer among the object's deals for a contract, though svc_ompGetObject still lists it.
    expect(await dealsOf(uploaded.cid)).toEqual([]);
    expect((await v.getObject(uploaded.cid)).deals).toContain(dealId);

    // OGT: the compute provider's bond gates; an account with none is refused.
    const operator = compute.node.keys.operator.address;
    const balance = await v.getBalance(operator);
    const [ogt, bonded, stake] = await read<[bigint, bigint, bigint]>('gate', [evm(operator), 1000n * UNIT]);
    expect({ ogt, bonded, stake }).toEqual({ ogt: balance.ogt, bonded: balance.bonded.compute, stake: 0n });
    await expect(read('gate', [evm(accountAddress(probe)), 1n])).rejects.toThrow(/not bonded enough/);
  });

  it('settles a contract job whose two replicas disagree (a wrong provider played by the test) by re-execution, and calls the contract back once with the right output', async () => {
    const M = generateKeyPair();
    await v.waitForTransaction((await v.transfer(devnetKey('account', 2), M.address, 'OGT', 2000n * UNIT)).hash);
    const registered = await v.waitForTransaction(
      (
        await v.signAndSend(M, 'oon.register', {
          peerId: 'test-signer',
          bond: (1000n * UNIT).toString(),
          details: { capabilities: ['wasm'], maxConcurrentJobs: 4 },
        } as never)
      ).hash,
    );
    expect(registered.status).toBe('success');
    const { publicClient, wallet } = clients();
    const { abi } = artifact('WordCount');
    const contract = await deploy('WordCount', 10n * UNIT);
    const hash = await wallet.writeContract({
      address: contract,
      abi,
      functionName: 'count',
      args: [upperCid, '0x', viemHex(new TextEncoder().encode('who is right')), 1_000_000n, GAS_PRICE, 2],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    const jobId = (await publicClient.readContract({ address: contract, abi, functionName: 'lastJob' })) as Hex;
    const record = () => readJob((key) => validator.node.service<SvcChain>('chain').state.get(key), jobId);
    await waitFor(record, (job) => job?.assignments.length === 2, 20_000, 'both replicas assigned');
    const wrong: ReportedResult = {
      outputHash: toHex(sha256(new TextEncoder().encode('wrong'))),
      exit: 'exit:0',
      gasUsed: '1000',
      outputSize: 5,
    };
    const salt = toHex(randomBytes(32));
    const send = async (kind: string, payload: Record<string, unknown>) =>
      (await v.waitForTransaction((await v.signAndSend(M, kind, payload as never)).hash)).status;
    expect(await send('oon.commitResult', { jobId, commitment: resultCommitment(jobId, M.address, wrong, salt) })).toBe(
      'success',
    );
    await waitFor(
      () => record()?.status,
      (status) => status === 'committed',
      20_000,
      'both commitments',
    );
    expect(
      await send('oon.revealResult', { jobId, ...wrong, salt, output: toHex(new TextEncoder().encode('wrong')) }),
    ).toBe('success');
    const done = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(done).toMatchObject({
      status: 'finalized',
      settledBy: 're-execution',
      providers: [compute.node.keys.operator.address],
      callback: { status: 'success', calledAt: done.finalizedAt },
    });
    const answer = (await publicClient.readContract({
      address: contract,
      abi,
      functionName: 'answers',
      args: [jobId],
    })) as Hex;
    expect(Buffer.from(answer.slice(2), 'hex').toString()).toBe('WHO IS RIGHT');
    expect(await publicClient.readContract({ address: contract, abi, functionName: 'statuses', args: [jobId] })).toBe(
      4,
    );
    expect(await send('oon.unregister', {})).toBe('success');
  });

  it('conserves OMC in every block: what accounts and escrows hold changes only by faucet mints and the EVM base fee burned', async () => {
    const baseFee = BigInt((await v.rpcCall<string>('eth_gasPrice'))!);
    const heights = [...supply.keys()].sort((a, b) => a - b);
    expect(heights.length).toBeGreaterThan(50);
    const wrong: string[] = [];
    for (const height of heights.slice(1)) {
      const before = supply.get(height - 1);
      const after = supply.get(height)!;
      if (!before) continue;
      let expected = before.total;
      for (const tx of after.txs) {
        if (tx.kind === 'faucet.mint' && tx.status === 'success')
          expected += BigInt(((await v.getTransaction(tx.hash)).payload as { omc: string }).omc);
        // A callback burns nothing: its gas is paid from the job's reserve, at the job's price, to the proposer.
        if (tx.gasUsed !== undefined && tx.kind.startsWith('evm.') && tx.kind !== CALLBACK_KIND)
          expected -= BigInt(tx.gasUsed) * baseFee;
      }
      if (after.total !== expected)
        wrong.push(`block ${height}: ${after.total} OMC held, ${expected} expected (${after.total - expected} more)`);
    }
    expect(wrong).toEqual([]);
  });

  it('brings a node synced from genesis to the same state root: contract jobs, their escrows and callbacks, contract deals re-executed alike', async () => {
    await expectFollowerAgrees(validator, plainDevnet());
  });
});
