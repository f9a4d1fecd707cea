import { encode } from 'cborg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merkleRootPaced } from '../../chain/merkle.js';
import { Pacer } from '../../chain/pacer.js';
import { fromHex, SvcClient, toHex, type Receipt } from '../../sdk/index.js';
import { cast, TEST_ADDRESS_1, TEST_KEY_0 } from '../helpers/foundry.js';
import { startTestNode, type TestNode } from '../helpers/test-node.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ storage: 'memory', validator: { blockTime: 100 } });
});
afterAll(async () => {
  await node?.stop();
});

/** A receipt's leaf exactly as docs/chain.md describes it, encoded by cborg with its defaults. */
function documentedLeaf(receipt: Receipt, revertAs: 'bytes' | 'text' = 'bytes'): Uint8Array {
  const core: unknown[] = [
    fromHex(receipt.transactionHash),
    receipt.index,
    receipt.status === 'success' ? 1 : 0,
    receipt.error?.name ?? '',
    receipt.error?.reason ?? '',
  ];
  if (receipt.gasUsed !== undefined) {
    const logs = (receipt.logs ?? []).map((log) => [
      log.address,
      log.topics.map((topic) => fromHex(topic)),
      fromHex(log.data),
    ]);
    const revert =
      receipt.revert !== undefined ? fromHex(receipt.revert) : revertAs === 'bytes' ? new Uint8Array() : '';
    core.push([
      receipt.gasUsed,
      receipt.cumulativeGasUsed ?? 0,
      receipt.effectiveGasPrice ?? '0',
      receipt.contractAddress ?? '',
      logs,
      revert,
    ]);
  }
  return encode(core);
}

describe('docs/chain.md: the receipt root', () => {
  it("reproduces from a block's receipts as the page encodes them: an absent revert is an empty byte string, not text", async () => {
    const sent = JSON.parse(
      await cast([
        'send',
        '--rpc-url',
        node.url,
        '--private-key',
        TEST_KEY_0,
        TEST_ADDRESS_1,
        '--value',
        '1',
        '--json',
      ]),
    ) as { transactionHash: string };
    const client = new SvcClient(node.url);
    const receipt = await client.waitForTransaction(sent.transactionHash, { pollMs: 50 });
    expect(receipt.gasUsed).toBe(21_000);
    const block = await client.getBlockByNumber(receipt.blockNumber);
    const receipts = await Promise.all(block.transactions.map((hash) => client.getTransactionReceipt(hash)));
    const root = async (revertAs: 'bytes' | 'text') =>
      toHex(
        await merkleRootPaced(
          receipts.map((r) => documentedLeaf(r, revertAs)),
          new Pacer(),
        ),
      );
    expect(await root('bytes')).toBe(block.receiptRoot);
    expect(await root('text')).not.toBe(block.receiptRoot);
  });
});
