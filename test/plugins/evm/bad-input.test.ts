import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  parseTransaction,
  serializeTransaction,
  type Abi,
  type Chain,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { rpc, startTestNode, waitFor, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';
import { TEST_ADDRESS_0, TEST_ADDRESS_1, TEST_KEY_0 } from '../../helpers/foundry.js';

const CHAIN_ID = 0x737663;
const account = privateKeyToAccount(TEST_KEY_0);
const base = {
  chainId: CHAIN_ID,
  type: 'eip1559' as const,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 0n,
  gas: 100_000n,
  to: TEST_ADDRESS_1 as Hex,
  value: 1n,
};

describe('bad Ethereum input: a clear error, nothing admitted, nothing changed', () => {
  let node: TestNode;
  let probe: Hex;
  let chain: Chain;

  const pending = async () =>
    (await rpc<{ pendingTransactions: number }>(node.url, 'svc_chainInfo')).body.result!.pendingTransactions;
  const nonce = async () =>
    Number((await rpc<string>(node.url, 'eth_getTransactionCount', [TEST_ADDRESS_0, 'pending'])).body.result);
  const send = async (raw: string) => (await rpc(node.url, 'eth_sendRawTransaction', [raw])).body;
  /** Submits and expects a refusal matching `message`, with no transaction admitted and the nonce unchanged. */
  const refused = async (raw: string, message: RegExp, code = -32000) => {
    const [before, nonceBefore] = [await pending(), await nonce()];
    const body = await send(raw);
    expect(body.error, JSON.stringify(body)).toMatchObject({ code });
    expect(body.error!.message).toMatch(message);
    expect([await pending(), await nonce()]).toEqual([before, nonceBefore]);
  };

  beforeAll(async () => {
    // Blocks only when asked for by the test's waits; 100 ms keeps the chain moving.
    node = await startTestNode({ validator: { blockTime: 100 } });
    chain = defineChain({
      id: CHAIN_ID,
      name: 'svc',
      nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const { abi, bytecode } = contracts().Probe!;
    const wallet = createWalletClient({ chain, transport: http(node.url), account });
    const hash = await wallet.deployContract({ abi: abi as Abi, bytecode: bytecode as Hex });
    probe = (await createPublicClient({ chain, transport: http(node.url) }).waitForTransactionReceipt({ hash }))
      .contractAddress!;
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('refuses malformed RLP, another chain id, a legacy transaction without EIP-155, and bad or high-s signatures', async () => {
    const n = await nonce();
    await refused('0x02f8ffff00', /not an Ethereum transaction|rlp/i);
    await refused('0xdeadbeef', /not an Ethereum transaction|rlp|invalid/i);
    await refused(await account.signTransaction({ ...base, nonce: n, chainId: 1 }), /invalid chain id/);
    await refused(
      await account.signTransaction({
        to: TEST_ADDRESS_1 as Hex,
        value: 1n,
        gas: 21_000n,
        gasPrice: 2_000_000_000n,
        nonce: n,
        type: 'legacy',
      }),
      /replay-protected \(EIP-155\)/,
    );
    // The same transaction with s replaced by n - s (and the parity flipped): valid on secp256k1, refused by EIP-2.
    const signed = parseTransaction(await account.signTransaction({ ...base, nonce: n }));
    const highS = `0x${(secp256k1.Point.CURVE().n - BigInt(signed.s!)).toString(16).padStart(64, '0')}` as Hex;
    await refused(
      serializeTransaction({ ...base, nonce: n }, { r: signed.r!, s: highS, yParity: signed.yParity === 0 ? 1 : 0 }),
      /invalid sender/,
    );
    await refused(
      serializeTransaction({ ...base, nonce: n }, { r: '0x0', s: signed.s!, yParity: signed.yParity! }),
      /invalid sender/,
    );
    // The same for a legacy (EIP-155) and an EIP-2930 transaction: ethereumjs refuses a high s only as it builds a typed one.
    const legacy = {
      chainId: CHAIN_ID,
      type: 'legacy' as const,
      gasPrice: 2_000_000_000n,
      gas: 21_000n,
      to: TEST_ADDRESS_1 as Hex,
      value: 1n,
      nonce: n,
    };
    const legacySigned = parseTransaction(await account.signTransaction(legacy));
    const legacyHighS =
      `0x${(secp256k1.Point.CURVE().n - BigInt(legacySigned.s!)).toString(16).padStart(64, '0')}` as Hex;
    const flippedV = legacySigned.v! % 2n === 0n ? legacySigned.v! - 1n : legacySigned.v! + 1n;
    await refused(serializeTransaction(legacy, { r: legacySigned.r!, s: legacyHighS, v: flippedV }), /invalid sender/);
    const accessList = { ...legacy, type: 'eip2930' as const, accessList: [] };
    const accessListSigned = parseTransaction(await account.signTransaction(accessList));
    const accessListHighS =
      `0x${(secp256k1.Point.CURVE().n - BigInt(accessListSigned.s!)).toString(16).padStart(64, '0')}` as Hex;
    await refused(
      serializeTransaction(accessList, {
        r: accessListSigned.r!,
        s: accessListHighS,
        yParity: accessListSigned.yParity === 0 ? 1 : 0,
      }),
      /invalid sender/,
    );
  });

  it("refuses intrinsic gas too low, gas over the block limit or EIP-7825's cap, a fee cap under the base fee, and init code over EIP-3860", async () => {
    const n = await nonce();
    await refused(
      await account.signTransaction({ ...base, nonce: n, gas: 21_000n, data: '0x01020304' }),
      /intrinsic gas too low/,
    );
    // Over the block gas limit (60M) and EIP-7825's per-transaction cap (2^24), which is the lower one.
    await refused(
      await account.signTransaction({ ...base, nonce: n, gas: 100_000_000n }),
      /exceeds block gas limit|gas limit too high.*EIP-7825/,
    );
    await refused(
      await account.signTransaction({ ...base, nonce: n, gas: 20_000_000n }),
      /exceeds block gas limit|gas limit too high.*EIP-7825/,
    );
    await refused(
      await account.signTransaction({ ...base, nonce: n, maxFeePerGas: 1n }),
      /max fee per gas less than block base fee/,
    );
    await refused(
      await account.signTransaction({
        ...base,
        nonce: n,
        to: undefined,
        value: 0n,
        gas: 16_000_000n,
        data: `0x${'00'.repeat(49_153)}`,
      }),
      /max initcode size exceeded/,
    );
  });

  it('refuses nonces too low and too far ahead, and a sender without the funds for gas × price + value', async () => {
    const n = await nonce();
    const hash = (await send(await account.signTransaction({ ...base, nonce: n }))).result as string;
    await waitFor(
      () => rpc(node.url, 'eth_getTransactionReceipt', [hash]),
      (r) => r.body.result !== null,
      10_000,
      'the transfer mined',
    );
    await refused(await account.signTransaction({ ...base, nonce: n }), /^(nonce too low|already known)/);
    await refused(await account.signTransaction({ ...base, nonce: n + 5_000 }), /^nonce too high/);
    const pauper = privateKeyToAccount(generatePrivateKey());
    await refused(await pauper.signTransaction({ ...base, nonce: 0 }), /^insufficient funds for gas \* price \+ value/);
  });

  it('answers eth_sendTransaction with a clear error (the node holds no keys)', async () => {
    const body = (
      await rpc(node.url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, to: TEST_ADDRESS_1, value: '0x1' }])
    ).body;
    expect(body.error).toMatchObject({ code: -32000 });
    expect(body.error!.message).toMatch(/holds no user keys.*eth_sendRawTransaction/);
  });

  it('ends an infinite loop out of gas at its limit, mined with status 0, while the node keeps answering', async () => {
    const data = encodeFunctionData({ abi: contracts().Probe!.abi as Abi, functionName: 'spin' });
    const hash = (
      await send(
        await account.signTransaction({ ...base, to: probe, value: 0n, data, gas: 2_000_000n, nonce: await nonce() }),
      )
    ).result as string;
    const receipt = await waitFor(
      () => rpc<{ status: string; gasUsed: string }>(node.url, 'eth_getTransactionReceipt', [hash]),
      (r) => Boolean(r.body.result),
      20_000,
      'the loop mined',
    );
    expect(receipt.body.result).toMatchObject({ status: '0x0', gasUsed: '0x1e8480' });
    const svc = (await rpc<{ status: string; error: { name: string } }>(node.url, 'svc_getTransactionReceipt', [hash]))
      .body.result!;
    expect(svc).toMatchObject({ status: 'failed', error: { name: 'out_of_gas' } });
    expect((await rpc(node.url, 'eth_blockNumber')).body.result).toMatch(/^0x/);
  });

  it('refuses an eth_getLogs range past the cap with -32005 naming the cap', async () => {
    const body = (await rpc(node.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x2710' }])).body;
    expect(body.error).toMatchObject({ code: -32005 });
    expect(body.error!.message).toContain('10000');
    expect((await rpc(node.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x270f' }])).body.result).toEqual(
      expect.any(Array),
    );
  });

  it('mines a deploy whose code is over the EIP-170 limit as failed, code_too_large, paying its gas', async () => {
    // Init code that returns 24,577 zero bytes: one byte over the limit.
    const hash = (
      await send(
        await account.signTransaction({
          ...base,
          to: undefined,
          value: 0n,
          data: '0x6160016000f3',
          gas: 6_000_000n,
          nonce: await nonce(),
        }),
      )
    ).result as string;
    const receipt = await waitFor(
      () => rpc<{ status: string; contractAddress: string | null }>(node.url, 'eth_getTransactionReceipt', [hash]),
      (r) => Boolean(r.body.result),
      20_000,
      'the deploy mined',
    );
    // The address it would have made, as geth and Anvil fill a create's receipt whether or not it succeeded.
    const { getContractAddress } = await import('viem');
    const sender = (await rpc<{ from: string; nonce: string }>(node.url, 'eth_getTransactionByHash', [hash])).body
      .result!;
    expect(receipt.body.result).toMatchObject({
      status: '0x0',
      contractAddress: getContractAddress({
        from: sender.from as `0x${string}`,
        nonce: BigInt(sender.nonce),
      }).toLowerCase(),
    });
    expect((await rpc(node.url, 'svc_getTransactionReceipt', [hash])).body.result).toMatchObject({
      status: 'failed',
      error: { name: 'code_too_large' },
    });
  });
});
