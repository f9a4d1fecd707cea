import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  type Abi,
  type Address,
  type Chain as ViemChain,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rpc, startTestNode, waitFor, type TestNode } from '../../helpers/test-node.js';
import { expectFollowerAgrees } from '../../helpers/follower.js';
import { contracts } from '../../helpers/contracts.js';
import { startNodeProcess } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp-dirs.js';
import { TEST_ADDRESS_1, TEST_KEY_0, TEST_KEY_1 } from '../../helpers/foundry.js';
import { devnetKey } from '../../../sdk/keys.js';
import { rawTransaction, signTransaction } from '../../../sdk/transaction.js';
import type { Chain } from '../../../chain/chain.js';
import type { P2pService } from '../../../p2p/service.js';

const CHAIN_ID = 0x737663;
const artifact = (name: string) => contracts()[name] as unknown as { abi: Abi; bytecode: Hex };
const chainAt = (url: string): ViemChain =>
  defineChain({
    id: CHAIN_ID,
    name: 'svc',
    nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });

/** Deploys a token and a probe and runs a mix through both envelopes: transfers, a revert, native calls, a CREATE2. */
async function contractWorkload(url: string): Promise<{ token: Address; transferBlock: bigint }> {
  const chain = chainAt(url);
  const publicClient = createPublicClient({ chain, transport: http(url), pollingInterval: 20 });
  const wallet = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(TEST_KEY_0) });
  const deploy = async (name: string, args: unknown[] = []) =>
    (
      await publicClient.waitForTransactionReceipt({
        hash: await wallet.deployContract({ abi: artifact(name).abi, bytecode: artifact(name).bytecode, args }),
      })
    ).contractAddress!;
  const token = await deploy('Token', [10n ** 21n]);
  const probe = await deploy('Probe');
  const factory = await deploy('Factory');
  const hashes = [
    await wallet.writeContract({
      address: token,
      abi: artifact('Token').abi,
      functionName: 'transfer',
      args: [TEST_ADDRESS_1, 1_000n],
    }),
    await wallet.writeContract({
      address: probe,
      abi: artifact('Probe').abi,
      functionName: 'count',
      args: [3n],
      type: 'legacy',
      gasPrice: 3_000_000_000n,
    }),
    await wallet.writeContract({
      address: factory,
      abi: artifact('Factory').abi,
      functionName: 'deploy',
      args: [`0x${'ab'.repeat(32)}`, artifact('Probe').bytecode],
    }),
    // A revert still pays its gas: the state changes on every node alike.
    await wallet.writeContract({
      address: token,
      abi: artifact('Token').abi,
      functionName: 'transfer',
      args: [TEST_ADDRESS_1, 10n ** 30n],
      gas: 100_000n,
    }),
  ];
  const dev = devnetKey('account', 5);
  const native = signTransaction(
    {
      chainId: 'svc-devnet-1',
      kind: 'evm.call',
      nonce: (await rpc<number>(url, 'svc_getNonce', [dev.address])).body.result!,
      payload: {
        to: probe,
        data: encodeFunctionData({ abi: artifact('Probe').abi, functionName: 'count', args: [2n] }),
        value: '0',
        gasLimit: 300_000,
      },
    },
    dev,
  );
  await rpc(url, 'svc_sendRawTransaction', [rawTransaction(native)]);
  const receipts = await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash })));
  expect(receipts.map((r) => r.status)).toEqual(['success', 'success', 'success', 'reverted']);
  await waitFor(
    () => rpc(url, 'svc_getTransactionReceipt', [native.hash]),
    (r) => Boolean(r.body.result),
    10_000,
    'the native call',
  );
  return { token, transferBlock: receipts[0]!.blockNumber };
}

describe('contracts: every node computes the same chain', () => {
  let validator: TestNode;
  let workload: { token: Address; transferBlock: bigint };

  beforeAll(async () => {
    validator = await startTestNode({ validator: { blockTime: 50 }, chain: { historyBlocks: 30 } });
    workload = await contractWorkload(validator.url);
  });
  afterAll(async () => {
    await validator?.stop();
  });

  it('a follower synced from genesis re-executes every contract block to the same hashes and state roots', async () => {
    await expectFollowerAgrees(validator);
  });

  it('an Ethereum transaction sent to a follower travels by gossip to the validator and is mined', async () => {
    const follower = await startTestNode({
      role: 'full',
      p2p: {
        host: '127.0.0.1',
        port: 0,
        bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
      },
    });
    try {
      await waitFor(
        () => follower.node.service<Chain>('chain').head.height,
        (h) => h >= validator.node.service<Chain>('chain').head.height,
        20_000,
        'the follower to catch up',
      );
      const account = privateKeyToAccount(TEST_KEY_1);
      const nonce = Number(
        (await rpc<string>(validator.url, 'eth_getTransactionCount', [account.address, 'pending'])).body.result,
      );
      const raw = await account.signTransaction({
        chainId: CHAIN_ID,
        to: TEST_ADDRESS_1,
        value: 5n,
        gas: 21_000n,
        nonce,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 0n,
      });
      const hash = (await rpc<string>(follower.url, 'eth_sendRawTransaction', [raw])).body.result!;
      const receipt = await waitFor(
        () => rpc<{ status: string }>(validator.url, 'eth_getTransactionReceipt', [hash]),
        (r) => Boolean(r.body.result),
        20_000,
        'the validator to mine it',
      );
      expect(receipt.body.result!.status).toBe('0x1');
    } finally {
      await follower.stop();
    }
  });

  it('an archive node answers eth_call and eth_getStorageAt at past blocks; a windowed node answers pruned outside its window', async () => {
    const archive = await startTestNode({
      role: 'full',
      chain: { receiptArchive: true, historyBlocks: 30 },
      p2p: {
        host: '127.0.0.1',
        port: 0,
        bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
      },
    });
    try {
      const { token, transferBlock } = workload;
      const balanceOf = encodeFunctionData({
        abi: artifact('Token').abi,
        functionName: 'balanceOf',
        args: [TEST_ADDRESS_1],
      });
      const callAt = (url: string, block: bigint) =>
        rpc<string>(url, 'eth_call', [{ to: token, data: balanceOf }, `0x${block.toString(16)}`]);
      // The window passes the transfer on the validator.
      await waitFor(
        () => archive.node.service<Chain>('chain').head.height,
        (h) => h >= Number(transferBlock) + 35,
        20_000,
        'the window to pass the transfer',
      );
      expect(BigInt((await callAt(archive.url, transferBlock - 1n)).body.result!)).toBe(0n);
      expect(BigInt((await callAt(archive.url, transferBlock)).body.result!)).toBe(1_000n);
      // The token's slot 1 is totalSupply (slot 0 is its name; constants and immutables take none).
      const supplySlot = (
        await rpc<string>(archive.url, 'eth_getStorageAt', [token, '0x1', `0x${(transferBlock - 1n).toString(16)}`])
      ).body.result!;
      expect(BigInt(supplySlot)).toBe(10n ** 21n);
      const pruned = (await callAt(validator.url, transferBlock - 1n)).body.error;
      expect(pruned).toMatchObject({ data: { error: 'pruned' } });
      expect(
        (await rpc(validator.url, 'eth_getStorageAt', [token, '0x1', `0x${(transferBlock - 1n).toString(16)}`])).body
          .error,
      ).toMatchObject({ data: { error: 'pruned' } });
    } finally {
      await archive.stop();
    }
  });
});

describe('contracts across a crash', () => {
  it('a node SIGKILLed while Ethereum transactions stream in restarts with its contracts, their state and their logs, and goes on', async () => {
    const dataDir = tempDir();
    let node = await startNodeProcess([
      '--role',
      'validator',
      '--network',
      'devnet',
      '--data-dir',
      dataDir,
      '--bind',
      '127.0.0.1:0',
      '--block-time',
      '100',
    ]);
    try {
      const chain = chainAt(node.url);
      const account = privateKeyToAccount(TEST_KEY_1);
      const publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 20 });
      const wallet = createWalletClient({ chain, transport: http(node.url), account });
      const { abi, bytecode } = artifact('Token');
      const token = (
        await publicClient.waitForTransactionReceipt({
          hash: await wallet.deployContract({ abi, bytecode, args: [1_000_000n] }),
        })
      ).contractAddress!;
      // A stream of transfers, each to its own recipient, and the node killed while they come.
      const nonce = await publicClient.getTransactionCount({ address: account.address });
      const signed = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          wallet.signTransaction({
            to: token,
            data: encodeFunctionData({
              abi,
              functionName: 'transfer',
              args: [`0x${(i + 1).toString(16).padStart(40, '0')}`, 10n],
            }),
            gas: 100_000n,
            nonce: nonce + i,
            maxFeePerGas: 2_000_000_000n,
            maxPriorityFeePerGas: 0n,
          }),
        ),
      );
      let acknowledged = 0;
      const sending = (async () => {
        for (const tx of signed) {
          await publicClient.sendRawTransaction({ serializedTransaction: tx }).then(
            () => acknowledged++,
            () => undefined,
          );
        }
      })();
      await waitFor(
        () => publicClient.getTransactionCount({ address: account.address }),
        (n) => n >= nonce + 5,
        10_000,
        'some transfers mined',
      );
      await node.stop('SIGKILL');
      await sending;
      node = await startNodeProcess([
        '--role',
        'validator',
        '--network',
        'devnet',
        '--data-dir',
        dataDir,
        '--bind',
        '127.0.0.1:0',
        '--block-time',
        '100',
      ]);
      const after = createPublicClient({ chain: chainAt(node.url), transport: http(node.url), pollingInterval: 20 });
      // Every transfer acknowledged before the kill is mined after it (the journal replays those that were pending).
      await waitFor(
        () => after.getTransactionCount({ address: account.address }),
        (n) => n >= nonce + acknowledged,
        15_000,
        'every acknowledged transfer mined',
      );
      // Every mined transfer is there, in the state and in eth_getLogs (the index caught up), and nothing else: read at one block.
      const height = await after.getBlockNumber();
      const mined = await after.getTransactionCount({ address: account.address, blockNumber: height });
      const logs = await after.getContractEvents({
        address: token,
        abi,
        eventName: 'Transfer',
        fromBlock: 0n,
        toBlock: height,
      });
      expect(logs).toHaveLength(1 + (mined - nonce));
      const spent = BigInt(mined - nonce) * 10n;
      expect(
        await after.readContract({
          address: token,
          abi,
          functionName: 'balanceOf',
          args: [account.address],
          blockNumber: height,
        }),
      ).toBe(1_000_000n - spent);
      // And it goes on: the next transfer (after any still pending) is mined after the restart.
      const next = await after.getTransactionCount({ address: account.address, blockTag: 'pending' });
      const hash = await after.sendRawTransaction({
        serializedTransaction: await account.signTransaction({
          chainId: CHAIN_ID,
          to: token,
          data: encodeFunctionData({ abi, functionName: 'transfer', args: [TEST_ADDRESS_1, 1n] }),
          gas: 100_000n,
          nonce: next,
          maxFeePerGas: 2_000_000_000n,
          maxPriorityFeePerGas: 0n,
        }),
      });
      expect((await after.waitForTransactionReceipt({ hash })).status).toBe('success');
    } finally {
      await node.stop();
    }
  });
});
