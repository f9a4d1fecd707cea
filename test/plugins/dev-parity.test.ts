import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, TEST_ADDRESS_0, TEST_ADDRESS_1 } from '../helpers/foundry.js';
import { rpc, startTestNode, type TestNode } from '../helpers/test-node.js';

// What a tool asks of a dev chain beyond mining and state edits, asked of `--dev` and of Anvil alike.
let dev: TestNode;
let anvil: { url: string; stop: () => Promise<void> };
beforeAll(async () => {
  [dev, anvil] = await Promise.all([startTestNode({ dev: true }), startAnvil()]);
});
afterAll(async () => {
  await Promise.all([dev?.stop(), anvil?.stop()]);
});

/** One call to both, answers side by side: [svc-node's, Anvil's]. */
async function both(method: string, params: unknown[]): Promise<[unknown, unknown]> {
  const [ours, theirs] = await Promise.all([rpc(dev.url, method, params), rpc(anvil.url, method, params)]);
  return [ours.body.result ?? ours.body.error, theirs.body.result ?? theirs.body.error];
}

const typedData = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'address' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 1,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  message: { from: TEST_ADDRESS_1, contents: 'Hello, Bob!' },
};

describe('dev mode signs as Anvil does', () => {
  it('eth_sign, personal_sign and eth_signTypedData_v4 with an unlocked account give Anvil’s signatures', async () => {
    const data = '0x48656c6c6f';
    const [signed, anvilSigned] = await both('eth_sign', [TEST_ADDRESS_0, data]);
    expect(signed).toMatch(/^0x[0-9a-f]{130}$/);
    expect(signed).toBe(anvilSigned);
    const [personal, anvilPersonal] = await both('personal_sign', [data, TEST_ADDRESS_0]);
    expect(personal).toBe(anvilPersonal);
    expect(personal).toBe(signed);
    for (const form of [typedData, JSON.stringify(typedData)]) {
      const [typed, anvilTyped] = await both('eth_signTypedData_v4', [TEST_ADDRESS_0, form]);
      expect(typed).toMatch(/^0x[0-9a-f]{130}$/);
      expect(typed).toBe(anvilTyped);
    }
  });

  it('refuses an account it holds no key for, and malformed typed data, with the reason', async () => {
    const stranger = '0x000000000000000000000000000000000000dEaD';
    const refused = (await rpc(dev.url, 'eth_sign', [stranger, '0x00'])).body.error;
    expect(refused).toMatchObject({ code: -32000, message: expect.stringContaining('unknown account') });
    const bad = (await rpc(dev.url, 'eth_signTypedData_v4', [TEST_ADDRESS_0, '{not json'])).body.error;
    expect(bad).toMatchObject({ code: -32602, message: expect.stringContaining('not JSON') });
    const wrongType = (
      await rpc(dev.url, 'eth_signTypedData_v4', [TEST_ADDRESS_0, { ...typedData, primaryType: 'Nope' }])
    ).body.error;
    expect(wrongType).toMatchObject({ code: -32602 });
  });

  it('eth_getBlockReceipts answers a block’s receipts by number, tag and hash as Anvil shapes them; null past the head', async () => {
    const sent = await Promise.all(
      [dev.url, anvil.url].map(
        async (url) =>
          (
            await rpc<string>(url, 'eth_sendTransaction', [
              { from: TEST_ADDRESS_0, to: TEST_ADDRESS_1, value: '0x1', gas: '0x5208' },
            ])
          ).body.result!,
      ),
    );
    const blocks = await Promise.all(
      [dev.url, anvil.url].map(
        async (url, i) =>
          (await rpc<{ blockNumber: string; blockHash: string }>(url, 'eth_getTransactionReceipt', [sent[i]])).body
            .result!,
      ),
    );
    for (const [i, url] of [dev.url, anvil.url].entries()) {
      const byNumber = (await rpc<Record<string, unknown>[]>(url, 'eth_getBlockReceipts', [blocks[i]!.blockNumber]))
        .body.result!;
      expect(byNumber.map((r) => r.transactionHash)).toEqual([sent[i]]);
      expect(Object.keys(byNumber[0]!).sort()).toEqual(expect.arrayContaining(['status', 'gasUsed', 'logs', 'type']));
      const byHash = (await rpc<unknown[]>(url, 'eth_getBlockReceipts', [blocks[i]!.blockHash])).body.result!;
      expect(byHash).toEqual(byNumber);
      expect((await rpc(url, 'eth_getBlockReceipts', ['0xffffff'])).body.result).toBeNull();
    }
  });
});
