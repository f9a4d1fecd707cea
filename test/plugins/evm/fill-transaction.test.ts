import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTransaction, type Hex } from 'viem';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';
import { TEST_ADDRESS_0, TEST_ADDRESS_1 } from '../../helpers/foundry.js';

describe('eth_fillTransaction', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ storage: 'memory' });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('completes a transfer for signing as geth does: the pending nonce, 21000 gas, the base fee as cap, the chain id; its raw is the unsigned transaction', async () => {
    const nonce = (await rpc<Hex>(node.url, 'eth_getTransactionCount', [TEST_ADDRESS_0, 'pending'])).body.result!;
    const { body } = await rpc<{ raw: Hex; tx: Record<string, string> }>(node.url, 'eth_fillTransaction', [
      { from: TEST_ADDRESS_0, to: TEST_ADDRESS_1, value: '0x1' },
    ]);
    expect(body.result?.tx).toMatchObject({
      type: '0x2',
      chainId: '0x737663',
      nonce,
      gas: '0x5208',
      maxFeePerGas: '0x3b9aca00',
      maxPriorityFeePerGas: '0x0',
      value: '0x1',
      to: TEST_ADDRESS_1,
    });
    const parsed = parseTransaction(body.result!.raw);
    expect({
      type: parsed.type,
      chainId: parsed.chainId,
      gas: parsed.gas,
      value: parsed.value,
      to: parsed.to?.toLowerCase(),
    }).toEqual({ type: 'eip1559', chainId: 0x737663, gas: 21_000n, value: 1n, to: TEST_ADDRESS_1.toLowerCase() });
    const legacy = await rpc<{ tx: Record<string, string> }>(node.url, 'eth_fillTransaction', [
      { from: TEST_ADDRESS_0, to: TEST_ADDRESS_1, gasPrice: '0x77359400' },
    ]);
    expect(legacy.body.result?.tx).toMatchObject({ type: '0x0', gasPrice: '0x77359400' });
  });

  it('answers a transaction that cannot run as an estimate does, and a malformed one as invalid params', async () => {
    // Init code that reverts at once (PUSH1 0, PUSH1 0, REVERT): its estimate, and so its fill, fails as geth's does.
    const reverting = await rpc(node.url, 'eth_fillTransaction', [{ from: TEST_ADDRESS_0, data: '0x60006000fd' }]);
    const estimate = await rpc(node.url, 'eth_estimateGas', [{ from: TEST_ADDRESS_0, data: '0x60006000fd' }]);
    expect(reverting.body.error).toEqual(estimate.body.error);
    expect(reverting.body.error?.message).toMatch(/execution reverted/);
    expect((await rpc(node.url, 'eth_fillTransaction', [{ to: 'nope' }])).body.error?.code).toBe(-32602);
  });
});
