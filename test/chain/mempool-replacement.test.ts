import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { rpc, startTestNode, tempDir, waitFor } from '../helpers/test-node.js';
import { cast, TEST_ADDRESS_0, TEST_ADDRESS_1, TEST_KEY_0 } from '../helpers/foundry.js';

const EVM_CHAIN_ID = 0x737663;
/** A validator that makes block 1 and then none for an hour: what it acknowledges stays pending. */
const STALLED = { validator: { blockTime: 3_600_000 } };
const account = privateKeyToAccount(TEST_KEY_0);
const GWEI = 1_000_000_000n;

const transferAt = (nonce: number, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint, value = 1n) =>
  account.signTransaction({
    chainId: EVM_CHAIN_ID,
    type: 'eip1559',
    nonce,
    to: TEST_ADDRESS_1,
    value,
    gas: 21_000n,
    maxFeePerGas,
    maxPriorityFeePerGas,
  });

const send = (url: string, raw: Hex) => rpc<Hex>(url, 'eth_sendRawTransaction', [raw]);
const hashOf = async (url: string, raw: Hex) => {
  const { body } = await send(url, raw);
  if (!body.result) throw new Error(`refused: ${JSON.stringify(body.error)}`);
  return body.result;
};

describe('replacing a pending transaction by fee bump', () => {
  it('takes a replacement with both fees 10% higher, refuses 5% in geth words, and mines only the replacement, also after a restart', async () => {
    const dataDir = tempDir('svc-replacement-');
    const stalled = await startTestNode({ dataDir, ...STALLED });
    await waitFor(
      async () => (await rpc<Hex>(stalled.url, 'eth_blockNumber')).body.result,
      (h) => h !== undefined && Number(h) >= 1,
      15_000,
      'block 1',
    );
    const nonce = Number(
      (await rpc<Hex>(stalled.url, 'eth_getTransactionCount', [TEST_ADDRESS_0, 'latest'])).body.result,
    );
    const filter = (await rpc<Hex>(stalled.url, 'eth_newPendingTransactionFilter')).body.result!;

    const stuck = await hashOf(stalled.url, await transferAt(nonce, 2n * GWEI, 1n * GWEI));
    const fivePercent = await send(stalled.url, await transferAt(nonce, 2_100_000_000n, 1_050_000_000n, 2n));
    expect(fivePercent.body.error?.code).toBe(-32000);
    expect(fivePercent.body.error?.message).toMatch(
      /^replacement transaction underpriced: .* maxFeePerGas ≥ 2200000000 and maxPriorityFeePerGas ≥ 1100000000/,
    );
    // Only one fee raised is not enough either.
    const capOnly = await send(stalled.url, await transferAt(nonce, 3n * GWEI, 1n * GWEI, 3n));
    expect(capOnly.body.error?.message).toMatch(/^replacement transaction underpriced/);
    const replacement = await hashOf(stalled.url, await transferAt(nonce, 2_200_000_000n, 1_100_000_000n, 4n));

    expect((await rpc(stalled.url, 'eth_getTransactionByHash', [stuck])).body.result).toBeNull();
    expect(
      (await rpc<{ hash: string }>(stalled.url, 'eth_getTransactionByHash', [replacement])).body.result?.hash,
    ).toBe(replacement);
    expect((await rpc<Hex>(stalled.url, 'eth_getTransactionCount', [TEST_ADDRESS_0, 'pending'])).body.result).toBe(
      `0x${(nonce + 1).toString(16)}`,
    );
    expect((await rpc<Hex[]>(stalled.url, 'eth_getFilterChanges', [filter])).body.result).toEqual([stuck, replacement]);
    // The stuck one again is not news: it is underpriced now.
    expect((await send(stalled.url, await transferAt(nonce, 2n * GWEI, 1n * GWEI))).body.error?.message).toMatch(
      /^replacement transaction underpriced/,
    );
    const journal = readFileSync(join(dataDir, 'pending-transactions.journal'));
    await stalled.stop();

    // Restarted with both records still in the journal: the replacement wins again, and it is what is mined.
    const node = await startTestNode({ dataDir, validator: { blockTime: 100 } });
    try {
      expect(journal.length).toBeGreaterThan(0);
      expect(node.logs.text()).toMatch(/journal: 1 acknowledged transactions pending again/);
      const receipt = await waitFor(
        async () =>
          (await rpc<{ status: Hex; transactionHash: Hex }>(node.url, 'eth_getTransactionReceipt', [replacement])).body
            .result,
        (r) => r != null,
        15_000,
        'the replacement mined',
      );
      expect(receipt?.status).toBe('0x1');
      expect((await rpc(node.url, 'eth_getTransactionReceipt', [stuck])).body.result).toBeNull();
      expect((await rpc(node.url, 'eth_getTransactionByHash', [stuck])).body.result).toBeNull();
    } finally {
      await node.stop();
    }
  }, 60_000);

  it("counts what a sender has pending against its balance, a replacement's value instead of the one it replaces", async () => {
    const node = await startTestNode(STALLED);
    try {
      await waitFor(
        async () => (await rpc<Hex>(node.url, 'eth_blockNumber')).body.result,
        (h) => h !== undefined && Number(h) >= 1,
        15_000,
        'block 1',
      );
      const balance = BigInt((await rpc<Hex>(node.url, 'eth_getBalance', [TEST_ADDRESS_0, 'latest'])).body.result!);
      const nonce = Number(
        (await rpc<Hex>(node.url, 'eth_getTransactionCount', [TEST_ADDRESS_0, 'latest'])).body.result,
      );
      const tenths = (n: bigint) => (balance * n) / 10n;
      await hashOf(node.url, await transferAt(nonce, 2n * GWEI, 1n * GWEI, tenths(1n)));
      await hashOf(node.url, await transferAt(nonce + 1, 2n * GWEI, 1n * GWEI, tenths(6n)));
      // Seven tenths pending and six more: more than the balance.
      const over = await send(node.url, await transferAt(nonce + 2, 2n * GWEI, 1n * GWEI, tenths(6n)));
      expect(over.body.error?.message).toMatch(/insufficient funds/);
      // The second replaced by one of three tenths: now five more fit, and then not two.
      await hashOf(node.url, await transferAt(nonce + 1, 3n * GWEI, 2n * GWEI, tenths(3n)));
      await hashOf(node.url, await transferAt(nonce + 2, 2n * GWEI, 1n * GWEI, tenths(5n)));
      const fourth = await send(node.url, await transferAt(nonce + 3, 2n * GWEI, 1n * GWEI, tenths(2n)));
      expect(fourth.body.error?.message).toMatch(/insufficient funds/);
    } finally {
      await node.stop();
    }
  }, 60_000);

  it('mines two `cast send` in a row from one account, the second with the pending nonce', async () => {
    // cast takes the "latest" nonce by itself: between blocks, a second send needs the pending one.
    const node = await startTestNode({ validator: { blockTime: 1_000 } });
    try {
      const sent = [
        await cast([
          'send',
          '--async',
          '--rpc-url',
          node.url,
          '--private-key',
          TEST_KEY_0,
          TEST_ADDRESS_1,
          '--value',
          '1',
        ]),
      ];
      const pending = await cast(['nonce', '--block', 'pending', '--rpc-url', node.url, TEST_ADDRESS_0]);
      sent.push(
        await cast([
          'send',
          '--async',
          '--rpc-url',
          node.url,
          '--private-key',
          TEST_KEY_0,
          '--nonce',
          pending,
          TEST_ADDRESS_1,
          '--value',
          '2',
        ]),
      );
      for (const hash of sent) {
        const receipt = await waitFor(
          async () => (await rpc<{ status: Hex }>(node.url, 'eth_getTransactionReceipt', [hash])).body.result,
          (r) => r != null,
          15_000,
          `${hash} mined`,
        );
        expect(receipt?.status).toBe('0x1');
      }
    } finally {
      await node.stop();
    }
  }, 60_000);
});
