import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, defineChain, http, toHex as viemHex, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SvcClient, UNIT } from '../../../sdk/index.js';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';
import { fixture } from '../../helpers/wat.js';
import { TEST_KEY_0 } from '../../helpers/foundry.js';

const wordCount = contracts().WordCount as unknown as { abi: Abi; bytecode: Hex };

// The dev node is the devnet's compute provider: after a revert its runner knows jobs only from the chain again.
describe('the compute runner across a dev-mode revert', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ dev: true });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("runs a contract's job to its callback again after the revert took the first run back", async () => {
    const chain = defineChain({
      id: 0x737663,
      name: 'svc dev',
      nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const reader = createPublicClient({ chain, transport: http(node.url), pollingInterval: 20 });
    const wallet = createWalletClient({ chain, transport: http(node.url), account: privateKeyToAccount(TEST_KEY_0) });
    const svc = new SvcClient(node.url);
    const jobToCallback = async (text: string): Promise<{ jobId: Hex; contract: Hex; answer: string }> => {
      const deployed = await reader.waitForTransactionReceipt({
        hash: await wallet.deployContract({ abi: wordCount.abi, bytecode: wordCount.bytecode, value: UNIT }),
      });
      const contract = deployed.contractAddress!;
      const sent = await wallet.writeContract({
        address: contract,
        abi: wordCount.abi,
        functionName: 'count',
        args: ['', viemHex(fixture('upper')), viemHex(new TextEncoder().encode(text)), 1_000_000n, 1_000n, 1],
      });
      expect((await reader.waitForTransactionReceipt({ hash: sent })).status).toBe('success');
      const jobId = (await reader.readContract({
        address: contract,
        abi: wordCount.abi,
        functionName: 'lastJob',
      })) as Hex;
      expect(await svc.waitForJob(jobId, { timeoutMs: 20_000 })).toMatchObject({
        status: 'finalized',
        callback: { status: 'success' },
      });
      const answer = (await reader.readContract({
        address: contract,
        abi: wordCount.abi,
        functionName: 'answers',
        args: [jobId],
      })) as Hex;
      return { jobId, contract, answer: Buffer.from(answer.slice(2), 'hex').toString() };
    };

    const snapshot = (await rpc<string>(node.url, 'evm_snapshot')).body.result!;
    const first = await jobToCallback('before the revert');
    expect(first.answer).toBe('BEFORE THE REVERT');
    expect((await rpc(node.url, 'evm_revert', [snapshot])).body.result).toBe(true);
    expect((await rpc(node.url, 'svc_oonGetJob', [first.jobId])).body.error?.message).toBe('not_found');

    // The same contract address again (the nonce went back); its job is a new one, and it calls back.
    const second = await jobToCallback('after the revert');
    expect(second.contract).toBe(first.contract);
    expect(second.answer).toBe('AFTER THE REVERT');
  }, 60_000);
});
