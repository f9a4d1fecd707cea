import { afterAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  http,
  toHex as viemHex,
  type Abi,
  type Chain as ViemChain,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetViemChain } from '../../helpers/viem-devnet.js';
import type { Chain } from '../../../chain/chain.js';
import { BlockStore } from '../../../chain/block-store.js';
import { openChainLayouts } from '../../../chain/layouts.js';
import { openStore } from '../../../kernel/storage/open.js';
import { SYSTEM_TRANSACTIONS_SINCE } from '../../../chain/system-transactions.js';
import { devnetKey, SvcClient, UNIT, type JobView } from '../../../sdk/index.js';
import { contracts } from '../../helpers/contracts.js';
import { TEST_KEY_0 } from '../../helpers/foundry.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';
import { fixture } from '../../helpers/wat.js';
import { peerOf } from '../snapshots/peering.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const node of nodes.reverse()) await node.stop();
});
async function start(config: Parameters<typeof startTestNode>[0]): Promise<TestNode> {
  const node = await startTestNode(config);
  nodes.push(node);
  return node;
}
const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');
const BEFORE = SYSTEM_TRANSACTIONS_SINCE - 1;

/**
 * A devnet data dir as the release before system transactions begins one: it records that version, and
 * the node (which keeps a devnet data dir on the version it started on) makes its devnet genesis at it.
 */
async function devnetDataDirBefore(): Promise<string> {
  const dataDir = tempDir();
  const store = await openStore('rocksdb', dataDir);
  try {
    const blocks = new BlockStore(openChainLayouts((name) => store.claim(name, 'test')));
    const batch = store.batch();
    blocks.stageRulesVersion(batch, BEFORE);
    await batch.write();
  } finally {
    await store.close();
  }
  return dataDir;
}

describe('callbacks get receipts from the rules version that makes them system transactions', () => {
  it('a running network upgrades in place at a height: callbacks before it have none, after it they do; a new node replays the blocks before it unchanged', async () => {
    const validator = await start({ dataDir: await devnetDataDirBefore(), validator: { blockTime: 100 } });
    const client = new SvcClient(validator.url);
    expect((await client.chainInfo()).rulesVersion).toBe(BEFORE);
    const chain: ViemChain = devnetViemChain(validator.url);
    const publicClient = createPublicClient({ chain, transport: http(validator.url), pollingInterval: 50 });
    const wallet = createWalletClient({
      chain,
      transport: http(validator.url),
      account: privateKeyToAccount(TEST_KEY_0),
    });
    const { abi, bytecode } = contracts().WordCount as unknown as { abi: Abi; bytecode: Hex };
    const address = (await publicClient.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi, bytecode, value: 10n * UNIT }),
    }))!.contractAddress!;
    const answered = async (input: string): Promise<JobView> => {
      await publicClient.waitForTransactionReceipt({
        hash: await wallet.writeContract({
          address,
          abi,
          functionName: 'count',
          args: ['', viemHex(fixture('upper')), viemHex(new TextEncoder().encode(input)), 1_000_000n, 1_000n, 1],
        }),
      });
      const jobId = (await publicClient.readContract({ address, abi, functionName: 'lastJob' })) as Hex;
      return client.waitForJob(jobId, { timeoutMs: 30_000 });
    };
    const events = () => publicClient.getContractEvents({ address, abi, eventName: 'Answered', fromBlock: 0n });

    const old = await answered('before');
    expect(old.callback).toMatchObject({ status: 'success', hash: null });
    expect((await client.getBlockByNumber(old.callback!.calledAt!)).systemTransactions).toBeUndefined();
    expect(await events()).toEqual([]);

    const height = chainOf(validator).head.height + 10;
    const sent = await client.proposeUpgrade(devnetKey('validator', 0), {
      version: SYSTEM_TRANSACTIONS_SINCE,
      height,
      name: 'callback-receipts',
    });
    expect((await client.waitForTransaction(sent.hash, { pollMs: 20 })).status).toBe('success');
    await waitFor(
      () => chainOf(validator).head.height,
      (h) => h >= height,
      20_000,
      'the upgrade height',
    );
    expect((await client.chainInfo()).rulesVersion).toBe(SYSTEM_TRANSACTIONS_SINCE);

    const now = await answered('after');
    expect(now.callback).toMatchObject({ status: 'success', hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect((await client.getBlockByNumber(now.callback!.calledAt!)).systemTransactions).toEqual([now.callback!.hash]);
    expect((await events()).map((log) => log.transactionHash)).toEqual([now.callback!.hash]);

    // A node that joins replays every block from the genesis, each under the version of its height.
    const follower = await start({
      dataDir: await devnetDataDirBefore(),
      role: 'full',
      p2p: peerOf([validator]),
    });
    const target = chainOf(validator).head.height;
    await waitFor(
      () => chainOf(follower).head.height,
      (h) => h >= target,
      30_000,
      'the new node to replay the chain',
    );
    for (const at of [old.callback!.calledAt!, height - 1, height, now.callback!.calledAt!])
      expect((await new SvcClient(follower.url).getBlockByNumber(at)).stateRoot).toBe(
        (await client.getBlockByNumber(at)).stateRoot,
      );
  }, 90_000);
});
