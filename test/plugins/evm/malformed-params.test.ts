import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, http } from 'viem';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';

// Every method of the Ethereum families on a dev node (the dev methods included), each parameter in
// turn replaced by values of the wrong type or shape, the others left as the method's examples or
// "latest": each call answers, none with an internal error, and the text is in `message`.
const FAMILIES = /^(eth|net|web3|debug|txpool|evm|anvil|hardhat|personal)_/;
const WRONG_CHECKSUM = '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const PRIMITIVES: unknown[] = [
  null,
  1,
  -1,
  1.5,
  1e300,
  true,
  'x',
  '0x',
  '0xzz',
  WRONG_CHECKSUM,
  `0x${'f'.repeat(80)}`,
  '99999999999999999999999',
  {},
  [],
  [1, 2],
  { to: 5 },
];
const FIELDS = [
  'from',
  'to',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'data',
  'input',
  'nonce',
  'accessList',
  'type',
  'chainId',
  'blockHash',
  'fromBlock',
  'toBlock',
  'address',
  'topics',
  'authorizationList',
  'blobVersionedHashes',
];
const FIELD_VALUES: unknown[] = [
  WRONG_CHECKSUM,
  'x',
  '0xzz',
  -1,
  {},
  `0x${'f'.repeat(40)}`,
  [['x']],
  [{ address: WRONG_CHECKSUM, storageKeys: ['0x1'] }],
  [{ address: ADDRESS, storageKeys: 'x' }],
  [null, [WRONG_CHECKSUM]],
];
/** Call and filter objects each with one field wrong. */
const OBJECTS = FIELDS.flatMap((field) =>
  FIELD_VALUES.map((value) => ({ from: ADDRESS, to: ADDRESS, [field]: value })),
);

interface MethodDoc {
  readonly name: string;
  readonly params: { readonly name: string; readonly schema?: { examples?: unknown[] } }[];
}

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ dev: true, validator: { blockTime: 100 } });
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

async function batch(calls: readonly { method: string; params: unknown[] }[]) {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: '2.0', id, ...call }))),
  });
  return (await response.json()) as { id: number; result?: unknown; error?: { code: number; message: string } }[];
}

describe('malformed parameters in the Ethereum families', () => {
  it('never reach an internal error: every method answers each wrong value with its own error or result', async () => {
    const { methods } = (await rpc<{ methods: MethodDoc[] }>(node.url, 'rpc.discover')).body.result!;
    const family = methods.filter((m) => FAMILIES.test(m.name));
    expect(family.length).toBeGreaterThan(40);
    const internal: string[] = [];
    let calls = 0;
    for (const method of family) {
      const arity = Math.max(1, method.params.length);
      const defaults = Array.from({ length: arity }, (_, i) => method.params[i]?.schema?.examples?.[0] ?? 'latest');
      const all = Array.from({ length: arity }, (_, position) =>
        [...PRIMITIVES, ...OBJECTS].map((value) => ({
          method: method.name,
          params: defaults.map((d, i) => (i === position ? value : d)),
        })),
      ).flat();
      for (let from = 0; from < all.length; from += 100) {
        const sent = all.slice(from, from + 100);
        const replies = await batch(sent);
        expect(replies).toHaveLength(sent.length);
        for (const reply of replies) {
          calls++;
          if (reply.error?.code === -32603)
            internal.push(`${method.name} ${JSON.stringify(sent[reply.id]!.params).slice(0, 200)}`);
        }
      }
    }
    expect(calls).toBeGreaterThan(10_000);
    expect(internal).toEqual([]);
  }, 120_000);

  it('put the reason in message, with the name, reason and field in data', async () => {
    const checksum = (await rpc(node.url, 'eth_getBalance', [WRONG_CHECKSUM, 'latest'])).body.error!;
    expect(checksum).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^address has a wrong EIP-55 checksum/),
      data: { error: 'invalid_params', field: 'address' },
    });
    const past = (await rpc(node.url, 'evm_setNextBlockTimestamp', [1])).body.error!;
    expect(past.message).toMatch(/^the next block's time must be after the head's/);
    expect(past.data).toMatchObject({ error: 'invalid_params', reason: past.message, field: 'timestamp' });
    const tips = (
      await rpc(node.url, 'eth_estimateGas', [{ from: ADDRESS, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }])
    ).body.error!;
    expect(tips).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/maxPriorityFeePerGas above maxFeePerGas/),
    });
    // The node's own methods keep its shape: the name in message, the text in data.reason.
    const svc = (await rpc(node.url, 'svc_getBalance', ['svc1nope'])).body.error!;
    expect(svc).toMatchObject({ code: -32602, message: 'invalid_address', data: { reason: expect.any(String) } });
    // viem shows it: its error's text carries the node's message.
    const viem = createTestClient({ mode: 'anvil', transport: http(node.url) });
    await expect(viem.setNextBlockTimestamp({ timestamp: 1n })).rejects.toThrow(/the next block's time must be after/);
    // And a time or count that would lose precision is refused, not rounded.
    expect((await rpc(node.url, 'evm_increaseTime', [1e300])).body.error).toMatchObject({ code: -32602 });
    expect((await rpc(node.url, 'evm_increaseTime', [60])).body.result).toBeTypeOf('number');
  });
});
