import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  http,
  toHex as viemHex,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetViemChain } from '../helpers/viem-devnet.js';
import { contracts } from '../helpers/contracts.js';
import { fixture } from '../helpers/wat.js';
import { TEST_KEY_0 } from '../helpers/foundry.js';
import { rpc, startTestNode, type TestNode } from '../helpers/test-node.js';
import { devnetKey, signTransaction, SvcClient, UNIT } from '../../sdk/index.js';
import { hexOfAddress } from '../../sdk/address.js';

const artifact = (name: string): { abi: Abi; bytecode: Hex } =>
  contracts()[name] as unknown as { abi: Abi; bytecode: Hex };
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
// OONStatus (contracts/IOON.sol).
const FINALIZED = 4;
const FAILED = 5;
const EXPIRED = 6;

/** A dev-mode method's result, or the error it answered. */
async function dev<T = string>(node: TestNode, method: string, params: unknown[]): Promise<T> {
  const { body } = await rpc<T>(node.url, method, params);
  if (body.error) throw new Error(`${method}: ${body.error.message} ${JSON.stringify(body.error.data ?? {})}`);
  return body.result!;
}

// A contract's tests reach every outcome of its jobs and deals at once, through the chain's own steps:
// the example contracts (contracts/WordCount.sol, contracts/MediaShelf.sol) on a `--dev` node with
// interval mining off, as a contract's test suite runs them.
describe("dev mode's controls of jobs and deals", () => {
  let node: TestNode;
  let client: PublicClient;
  let svc: SvcClient;
  let wallet: ReturnType<typeof createWalletClient>;
  let operator: string;
  beforeAll(async () => {
    node = await startTestNode({ dev: true });
    await dev(node, 'evm_setIntervalMining', [0]);
    const chain = devnetViemChain(node.url);
    client = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 }) as PublicClient;
    wallet = createWalletClient({ chain, transport: http(node.url), account: privateKeyToAccount(TEST_KEY_0) });
    svc = new SvcClient(node.url);
    // The devnet's validator is its compute and storage provider from block 0.
    operator = (await svc.oonListProviders())[0]!.operator;
  });
  afterAll(async () => {
    await node?.stop();
  });

  const deploy = async (name: string): Promise<Address> => {
    const { abi, bytecode } = artifact(name);
    const hash = await wallet.deployContract({
      abi,
      bytecode,
      value: 10n * UNIT,
      account: wallet.account!,
      chain: null,
    });
    return (await client.waitForTransactionReceipt({ hash })).contractAddress!;
  };
  const bondOf = (providers: readonly { operator: string; bond_ogt: string }[]): number =>
    Number(providers.find((p) => p.operator === operator)!.bond_ogt);
  const computeBond = async (): Promise<number> => bondOf(await svc.oonListProviders());
  const storageBond = async (): Promise<number> => bondOf(await svc.ompListProviders());

  it("drives the example contract's jobs to success, failure, expiry and a provider's lie, and its deal to a missed proof and its end, each at once", async () => {
    const started = performance.now();
    const wordCount = await deploy('WordCount');
    const { abi } = artifact('WordCount');
    const submit = async (input: string): Promise<Hex> => {
      const hash = await wallet.writeContract({
        address: wordCount,
        abi,
        functionName: 'count',
        args: ['', viemHex(fixture('upper')), viemHex(utf8(input)), 1_000_000n, 1_000n, 1],
        account: wallet.account!,
        chain: null,
      });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
      return (await client.readContract({ address: wordCount, abi, functionName: 'lastJob' })) as Hex;
    };
    /** What the contract kept of a job, and the callback's event (its status and output hash). */
    const outcome = async (jobId: Hex) => {
      const events = await client.getContractEvents({ address: wordCount, abi, eventName: 'Answered', fromBlock: 0n });
      const event = events.find((e) => (e.args as { jobId: Hex }).jobId === jobId);
      return {
        status: Number(await client.readContract({ address: wordCount, abi, functionName: 'statuses', args: [jobId] })),
        answer: (await client.readContract({ address: wordCount, abi, functionName: 'answers', args: [jobId] })) as Hex,
        event: event ? (event.args as { status: number; outputHash: Hex }) : undefined,
      };
    };

    // Settled with the output the test names: the callback gets it.
    const settled = await submit('settle me');
    const output = viemHex(utf8('forty-two'));
    await dev(node, 'svc_devSettleJob', [settled, output]);
    expect(await outcome(settled)).toEqual({
      status: FINALIZED,
      answer: output,
      event: expect.objectContaining({ status: FINALIZED, outputHash: viemHex(sha256(utf8('forty-two'))) }),
    });
    expect(await svc.getJob(settled)).toMatchObject({ status: 'finalized', settledBy: 'dev' });

    // Failed, and expired: refunded, and called back so.
    const failing = await submit('fail me');
    await dev(node, 'svc_devFailJob', [failing]);
    expect(await outcome(failing)).toMatchObject({ status: FAILED, answer: '0x', event: { status: FAILED } });
    const expiring = await submit('expire me');
    await dev(node, 'svc_devExpireJob', [expiring]);
    expect(await outcome(expiring)).toMatchObject({ status: EXPIRED, event: { status: EXPIRED } });

    // A provider that lies: the chain re-executes the job, slashes it 10% and settles with the truth.
    const bondBefore = await computeBond();
    const lied = await submit('tell the truth');
    await dev(node, 'svc_devMisreportJob', [lied]);
    expect(await outcome(lied)).toEqual({
      status: FINALIZED,
      answer: viemHex(utf8('TELL THE TRUTH')),
      event: expect.objectContaining({ status: FINALIZED }),
    });
    expect(await svc.getJob(lied)).toMatchObject({ status: 'finalized', settledBy: 're-execution' });
    expect(await computeBond()).toBeCloseTo(bondBefore * 0.9, 6);

    // A deal the example contract makes for an object it had uploaded, paid from its OMC.
    const shelf = await deploy('MediaShelf');
    const shelfAbi = artifact('MediaShelf').abi;
    const object = await svc.uploadObject(utf8('a document the shelf keeps'));
    const hash = await wallet.writeContract({
      address: shelf,
      abi: shelfAbi,
      functionName: 'shelve',
      args: [
        {
          cid: object.cid,
          size: BigInt(object.size),
          root: object.root as Hex,
          format: object.format,
          mediaType: object.mediaType,
          replicas: 1,
          durationBlocks: 1_000n,
          price: 1_000_000n,
          provider: hexOfAddress(operator as never) as Address,
        },
      ],
      account: wallet.account!,
      chain: null,
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    const dealId = (await client.readContract({ address: shelf, abi: shelfAbi, functionName: 'lastDeal' })) as Hex;
    await svc.waitForDeal(dealId, { timeoutMs: 20_000 });
    const kept = async () =>
      (await client.readContract({ address: shelf, abi: shelfAbi, functionName: 'kept', args: [dealId] })) as [
        boolean,
        number,
        bigint,
        bigint,
      ];
    expect((await kept())[0]).toBe(true);

    // A missed proof: the provider loses 1% of its storage bond to the contract; the deal goes on.
    const storageBefore = await storageBond();
    await dev(node, 'svc_devMissProof', [dealId]);
    expect(await storageBond()).toBeCloseTo(storageBefore * 0.99, 6);
    expect(await svc.getDeal(dealId)).toMatchObject({ status: 'active', faults: 1 });
    expect((await kept())[0]).toBe(true);

    // Its end: closed, the escrow left back to the contract.
    await dev(node, 'svc_devEndDeal', [dealId]);
    const [active, status, escrow] = await kept();
    expect([active, status, escrow]).toEqual([false, 3, 0n]);
    expect(await svc.getDeal(dealId)).toMatchObject({ status: 'closed' });
    // Recorded for the docs' claim (a contract's whole fault-path suite in seconds), not asserted.
    console.info(`dev controls of jobs and deals: ${Math.round(performance.now() - started)} ms`);
  });

  it("refuses an unknown job or deal, a settled job, a malformed output, and the kinds signed by anyone but the devnet's validator, with the reason, changing nothing", async () => {
    const unknown = `0x${'ab'.repeat(32)}`;
    const answer = async (method: string, params: unknown[]) => (await rpc(node.url, method, params)).body.error;
    expect(await answer('svc_devFailJob', [unknown])).toMatchObject({ message: 'not_found' });
    expect(await answer('svc_devEndDeal', [unknown])).toMatchObject({ message: 'not_found' });
    const wordCount = await deploy('WordCount');
    const { abi } = artifact('WordCount');
    const hash = await wallet.writeContract({
      address: wordCount,
      abi,
      functionName: 'count',
      args: ['', viemHex(fixture('upper')), '0x', 1_000_000n, 1_000n, 1],
      account: wallet.account!,
      chain: null,
    });
    await client.waitForTransactionReceipt({ hash });
    const jobId = (await client.readContract({ address: wordCount, abi, functionName: 'lastJob' })) as Hex;
    await dev(node, 'svc_devFailJob', [jobId]);
    const height = await svc.blockNumber();
    expect(await answer('svc_devFailJob', [jobId])).toMatchObject({
      message: 'invalid_params',
      data: { reason: expect.stringContaining('failed already') },
    });
    expect(await answer('svc_devSettleJob', [jobId, 'nothex'])).toMatchObject({ code: -32602 });
    // The kinds are the devnet validator's alone: signed by anyone else, refused.
    const key = devnetKey('account', 0);
    for (const [kind, payload] of [
      ['oon.dev', { jobId, action: 'expire' }],
      ['omp.dev', { dealId: jobId, action: 'end' }],
    ] as const) {
      const tx = signTransaction(
        { chainId: (await svc.chainInfo()).chainId, kind, nonce: await svc.getNonce(key.address), payload },
        key,
      );
      await expect(svc.sendTransaction(tx)).rejects.toMatchObject({
        message: 'invalid_transaction',
        data: { reason: expect.stringContaining("only the devnet's validator signs one") },
      });
    }
    expect(await svc.blockNumber()).toBe(height);
  });
});

describe('with interval mining off', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ dev: true });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("a job still goes on to its callback: the node mines the block its challenge window's end needs", async () => {
    await rpc(node.url, 'evm_setIntervalMining', [0]);
    const chain = devnetViemChain(node.url);
    const client = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 });
    const wallet = createWalletClient({ chain, transport: http(node.url), account: privateKeyToAccount(TEST_KEY_0) });
    const { abi, bytecode } = artifact('WordCount');
    const deployed = await client.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi, bytecode, value: 10n * UNIT }),
    });
    const address = deployed.contractAddress!;
    const submitted = await wallet.writeContract({
      address,
      abi,
      functionName: 'count',
      args: ['', viemHex(fixture('upper')), viemHex(utf8('on its own')), 1_000_000n, 1_000n, 1],
    });
    await client.waitForTransactionReceipt({ hash: submitted });
    const jobId = (await client.readContract({ address, abi, functionName: 'lastJob' })) as Hex;
    const job = await new SvcClient(node.url).waitForJob(jobId, { timeoutMs: 20_000 });
    expect(job).toMatchObject({ status: 'finalized', settledBy: 'unchallenged', callback: { status: 'success' } });
    expect(await client.readContract({ address, abi, functionName: 'answers', args: [jobId] })).toBe(
      viemHex(utf8('ON ITS OWN')),
    );
  });
});
