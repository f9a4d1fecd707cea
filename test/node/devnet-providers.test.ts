import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, toHex as viemHex, type Abi, type Chain, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetViemChain } from '../helpers/viem-devnet.js';
import { devnetKey, SvcClient, UNIT } from '../../sdk/index.js';
import { startTestNode, type TestNode } from '../helpers/test-node.js';
import { contracts } from '../helpers/contracts.js';
import { fixture } from '../helpers/wat.js';
import { media } from '../helpers/media.js';
import { TEST_KEY_0 } from '../helpers/foundry.js';

const artifact = (name: string): { abi: Abi; bytecode: Hex } =>
  contracts()[name] as unknown as { abi: Abi; bytecode: Hex };

// A default devnet validator with nothing registered by hand: its genesis made it the compute and
// storage provider.
describe('a fresh devnet', () => {
  let node: TestNode;
  let client: SvcClient;
  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 200 } });
    client = new SvcClient(node.url);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('has its validator registered as compute and storage provider from block 0, and the node knows it is that provider', async () => {
    const operator = devnetKey('validator', 0).address;
    expect(await client.oonNodeStatus()).toMatchObject({
      status: 'active',
      operator,
      capabilities: ['wasm', 'evm'],
      txHash: null,
    });
    expect(await client.ompStorageStatus()).toMatchObject({ status: 'active', operator, txHash: null });
    expect((await client.getBalance(operator)).bonded).toEqual({ compute: 1000n * UNIT, storage: 500n * UNIT });
  });

  it("runs the example contract's job to its callback and takes an upload, with no setup", async () => {
    const chain: Chain = devnetViemChain(node.url);
    const publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 });
    const wallet = createWalletClient({ chain, transport: http(node.url), account: privateKeyToAccount(TEST_KEY_0) });
    const { abi, bytecode } = artifact('WordCount');
    const deployed = await publicClient.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi, bytecode, value: 10n * UNIT }),
    });
    const contract = deployed.contractAddress!;
    const code = viemHex(fixture('upper'));
    const hash = await wallet.writeContract({
      address: contract,
      abi,
      functionName: 'count',
      args: ['', code, viemHex(new TextEncoder().encode('fresh devnet')), 1_000_000n, 1_000n, 1],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    const jobId = (await publicClient.readContract({ address: contract, abi, functionName: 'lastJob' })) as Hex;
    const job = await client.waitForJob(jobId, { timeoutMs: 30_000 });
    expect(job).toMatchObject({ status: 'finalized', providers: [devnetKey('validator', 0).address] });
    expect(job.callback).toMatchObject({ status: 'success' });
    const answer = (await publicClient.readContract({
      address: contract,
      abi,
      functionName: 'answers',
      args: [jobId],
    })) as Hex;
    expect(Buffer.from(answer.slice(2), 'hex').toString()).toBe('FRESH DEVNET');

    const png = media.png(4096);
    const object = await client.uploadObject(png);
    expect(object.cid).toMatch(/^baf/);
    expect(Buffer.from(await (await fetch(`${node.url}/ipfs/${object.cid}`)).arrayBuffer()).equals(png)).toBe(true);
  });
});
