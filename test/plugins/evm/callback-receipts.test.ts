import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcProvider } from 'ethers';
import {
  createPublicClient,
  createWalletClient,
  http,
  toHex as viemHex,
  webSocket,
  type Abi,
  type Chain,
  type Hex,
  type Log,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetViemChain } from '../../helpers/viem-devnet.js';
import { SvcClient, UNIT } from '../../../sdk/index.js';
import { accountAddress } from '../../../sdk/address.js';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';
import { fixture } from '../../helpers/wat.js';
import { cast, TEST_KEY_0 } from '../../helpers/foundry.js';

const artifact = (name: string): { abi: Abi; bytecode: Hex } =>
  contracts()[name] as unknown as { abi: Abi; bytecode: Hex };

const OON = '0x0000000000000000000000000000000000000800';

// A fresh devnet (its validator is the compute provider): the example contract's job is called back,
// and the callback's event reaches every way a tool reads events.
describe('a callback is a system transaction', () => {
  let node: TestNode;
  let chain: Chain;
  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 200 } });
    chain = devnetViemChain(node.url);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('whose event reaches watchContractEvent (polling and WebSocket), eth_getLogs and its receipt; svc_oonGetJob names its hash; viem, ethers and cast read its block', async () => {
    const publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 });
    const wsClient = createPublicClient({ chain, transport: webSocket(node.wsUrl) });
    const wallet = createWalletClient({ chain, transport: http(node.url), account: privateKeyToAccount(TEST_KEY_0) });
    const { abi, bytecode } = artifact('WordCount');
    const deployed = await publicClient.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi, bytecode, value: 10n * UNIT }),
    });
    const address = deployed.contractAddress!;
    const polled: Log[] = [];
    const pushed: Log[] = [];
    const unwatch = [
      publicClient.watchContractEvent({ address, abi, eventName: 'Answered', onLogs: (logs) => polled.push(...logs) }),
      wsClient.watchContractEvent({ address, abi, eventName: 'Answered', onLogs: (logs) => pushed.push(...logs) }),
    ];
    try {
      const submitted = await wallet.writeContract({
        address,
        abi,
        functionName: 'count',
        args: ['', viemHex(fixture('upper')), viemHex(new TextEncoder().encode('seen')), 1_000_000n, 1_000n, 1],
      });
      expect((await publicClient.waitForTransactionReceipt({ hash: submitted })).status).toBe('success');
      const jobId = (await publicClient.readContract({ address, abi, functionName: 'lastJob' })) as Hex;
      const job = await new SvcClient(node.url).waitForJob(jobId, { timeoutMs: 30_000 });
      expect(job.callback).toMatchObject({ status: 'success', hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      const hash = job.callback!.hash as Hex;

      const receipt = await publicClient.getTransactionReceipt({ hash });
      expect(receipt).toMatchObject({ status: 'success', from: OON, to: address.toLowerCase(), type: '0x7d' });
      expect(receipt.logs).toHaveLength(1);
      expect(receipt.logs[0]!.topics[1]).toBe(jobId);
      expect(receipt.blockNumber).toBe(BigInt(job.callback!.calledAt!));

      const logs = await publicClient.getContractEvents({ address, abi, eventName: 'Answered', fromBlock: 0n });
      expect(logs.map((log) => log.transactionHash)).toEqual([hash]);
      expect(logs[0]!.logIndex).toBe(receipt.logs[0]!.logIndex);
      await expect
        .poll(() => [polled.map((l) => l.transactionHash), pushed.map((l) => l.transactionHash)], { timeout: 10_000 })
        .toEqual([[hash], [hash]]);

      // The block lists it after its user transactions, in every view; tools read it.
      const height = receipt.blockNumber;
      const block = await publicClient.getBlock({ blockNumber: height, includeTransactions: true });
      expect(block.transactions.at(-1)).toMatchObject({ hash, from: OON, to: address.toLowerCase() });
      const svcBlock = await new SvcClient(node.url).getBlockByNumber(Number(height));
      expect(svcBlock.systemTransactions).toEqual([hash]);
      // Among the contract's transactions (the explorer's account page), newest first, and the precompile's.
      for (const account of [address, OON]) {
        const page = await new SvcClient(node.url).listTransactions(accountAddress(account));
        expect(page.transactions.map((tx) => tx.hash)).toContain(hash);
      }
      expect((await new SvcClient(node.url).listTransactions(accountAddress(address))).transactions[0]!.hash).toBe(
        hash,
      );
      expect((await rpc(node.url, 'svc_getTransaction', [hash])).body.result).toMatchObject({
        hash,
        kind: 'evm.callback',
        status: 'mined',
        blockNumber: Number(height),
        payload: { origin: `oon.job ${jobId}`, to: expect.stringMatching(/^svc1/) },
      });
      const ethersBlock = await new JsonRpcProvider(node.url, 0x737663, { staticNetwork: true }).getBlock(
        Number(height),
        true,
      );
      expect(ethersBlock!.prefetchedTransactions.map((tx) => tx.hash)).toContain(hash);
      const castBlock = JSON.parse(await cast(['block', String(height), '--full', '--json', '--rpc-url', node.url]));
      expect((castBlock.transactions as { hash: string }[]).map((tx) => tx.hash)).toContain(hash);
      const castReceipt = JSON.parse(await cast(['receipt', hash, '--json', '--rpc-url', node.url]));
      expect(castReceipt.logs).toHaveLength(1);

      // Traced as any transaction: the block is replayed, its end steps too, and the callback traced.
      const frame = (
        await rpc<Record<string, unknown>>(node.url, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])
      ).body.result!;
      expect(frame).toMatchObject({
        type: 'CALL',
        from: OON,
        to: address.toLowerCase(),
        gasUsed: `0x${receipt.gasUsed.toString(16)}`,
      });
      expect(frame.input).toBe((await publicClient.getTransaction({ hash })).input);
      const steps = (await rpc<{ structLogs: unknown[]; failed: boolean }>(node.url, 'debug_traceTransaction', [hash]))
        .body.result!;
      expect(steps.failed).toBe(false);
      expect(steps.structLogs.length).toBeGreaterThan(10);
      const inBlock = (
        await rpc<{ txHash: string; result?: unknown }[]>(node.url, 'debug_traceBlockByNumber', [
          `0x${height.toString(16)}`,
          { tracer: 'callTracer' },
        ])
      ).body.result!;
      expect(inBlock.at(-1)).toEqual({ txHash: hash, result: frame });
    } finally {
      for (const stop of unwatch) stop();
    }
  });

  it('a callback that reverts has a failed receipt with no logs, still listed in its block', async () => {
    const publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 });
    const wallet = createWalletClient({ chain, transport: http(node.url), account: privateKeyToAccount(TEST_KEY_0) });
    const { abi, bytecode } = artifact('JobProbe');
    const deployed = await publicClient.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi, bytecode, value: 10n * UNIT }),
    });
    const address = deployed.contractAddress!;
    await publicClient.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address, abi, functionName: 'setMode', args: [1] }),
    });
    const onDone = `0x${(await cast(['sig', 'onDone(bytes32,uint8,string,bytes32,bytes)'])).slice(2)}`;
    await publicClient.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address,
        abi,
        functionName: 'submit',
        args: [viemHex(fixture('upper')), '0x', 1_000_000n, 1_000n, 1, onDone as Hex, 100_000n],
      }),
    });
    const jobId = (await publicClient.readContract({ address, abi, functionName: 'lastJob' })) as Hex;
    const job = await new SvcClient(node.url).waitForJob(jobId, { timeoutMs: 30_000 });
    expect(job.callback).toMatchObject({ status: 'reverted', hash: expect.stringMatching(/^0x/) });
    const receipt = await publicClient.getTransactionReceipt({ hash: job.callback!.hash as Hex });
    expect(receipt).toMatchObject({ status: 'reverted', logs: [] });
    expect(receipt.gasUsed).toBe(BigInt(job.callback!.gasUsed!));
  });
});
