import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  devnetKey,
  generateKeyPair,
  rawTransaction,
  signTransaction,
  SvcClient,
  transferPayload,
  UNIT,
  type KeyPair,
  type SignedTransaction,
} from '../../sdk/index.js';
import { encode } from '../../sdk/encoding.js';
import { toHex, fromHex } from '../../sdk/bytes.js';
import { startTestNode, type TestNode } from '../helpers/test-node.js';
import { signedInThisProcess } from '../../sdk/transaction.js';
import type { Chain } from '../../chain/chain.js';
import { failure } from '../helpers/rpc-failure.js';

let node: TestNode;
let client: SvcClient;
const alice = devnetKey('account', 1);
const bob = devnetKey('account', 2);

beforeAll(async () => {
  node = await startTestNode({ validator: { blockTime: 100 } });
  client = new SvcClient(node.url);
});
afterAll(async () => {
  await node.stop();
});

function transfer(
  key: KeyPair,
  to: string,
  amount: bigint,
  overrides: Partial<{ nonce: number; chainId: string }> = {},
  nonce = 0,
): SignedTransaction {
  return signTransaction(
    {
      chainId: overrides.chainId ?? 'svc-devnet-1',
      kind: 'transfer',
      nonce: overrides.nonce ?? nonce,
      payload: transferPayload(to, 'OMC', amount),
    },
    key,
  );
}

describe('signed transfers', () => {
  it('move exactly the amount between dev accounts, with a success receipt', async () => {
    const [a0, b0] = await Promise.all([client.getBalance(alice.address), client.getBalance(bob.address)]);
    const tx = await client.transfer(alice, bob.address, 'OMC', 1234n * UNIT + 5n);
    const receipt = await client.waitForTransaction(tx.hash, { pollMs: 25 });
    expect(receipt).toMatchObject({
      status: 'success',
      from: alice.address,
      kind: 'transfer',
      transactionHash: tx.hash,
    });
    const [a1, b1] = await Promise.all([
      client.getBalance(alice.address, receipt.blockNumber),
      client.getBalance(bob.address, receipt.blockNumber),
    ]);
    expect(a0.omc - a1.omc).toBe(1234n * UNIT + 5n);
    expect(b1.omc - b0.omc).toBe(1234n * UNIT + 5n);
    expect(a1.ogt).toBe(a0.ogt);
    const block = await client.getBlockByNumber(receipt.blockNumber);
    expect(block.transactions).toContain(tx.hash);
    expect(await client.getTransaction(tx.hash)).toMatchObject({
      status: 'mined',
      blockNumber: receipt.blockNumber,
      from: alice.address,
      payload: { to: bob.address, asset: 'OMC', amount: (1234n * UNIT + 5n).toString() },
    });
  });

  it('refuse a forged signature on a transaction object the node did not sign itself, and admit the one it signed', async () => {
    const chain = node.node.service<Chain>('chain');
    const nonce = await client.getNonce(alice.address);
    const forged = {
      ...transfer(alice, bob.address, 3n, {}, nonce),
      signature: toHex(new Uint8Array(64).fill(7)),
    } as SignedTransaction;
    expect(signedInThisProcess(forged)).toBe(false);
    expect(() => chain.submit(forged)).toThrow(expect.objectContaining({ message: 'invalid_signature' }));
    const own = transfer(alice, bob.address, 3n, {}, nonce);
    expect(signedInThisProcess(own)).toBe(true);
    chain.submit(own);
    expect((await client.waitForTransaction(own.hash)).status).toBe('success');
  });

  it('refuse a bad signature, a wrong nonce, a wrong chain id and an overdraft, changing nothing', async () => {
    const poor = generateKeyPair();
    const before = await client.getBalance(alice.address);
    const nonce = await client.getNonce(alice.address);

    const good = transfer(alice, bob.address, 1n, {}, nonce);
    const badSignature = { ...good, signature: toHex(new Uint8Array(64).fill(7)) } as SignedTransaction;
    expect(await failure(client.sendTransaction(badSignature))).toMatchObject({
      code: -32071,
      message: 'invalid_signature',
    });

    expect(
      await failure(client.sendTransaction(transfer(alice, bob.address, 1n, { nonce: nonce + 5000 }))),
    ).toMatchObject({ message: 'nonce_gap', data: { expected: nonce } });
    if (nonce > 0)
      expect(
        await failure(client.sendTransaction(transfer(alice, bob.address, 1n, { nonce: nonce - 1 }))),
      ).toMatchObject({ code: -32073, message: 'nonce_too_low' });
    expect(
      await failure(client.sendTransaction(transfer(alice, bob.address, 1n, { chainId: 'svc-other-1', nonce }))),
    ).toMatchObject({ code: -32072, message: 'wrong_chain_id' });
    expect(await failure(client.sendTransaction(transfer(poor, bob.address, 1n)))).toMatchObject({
      code: -32021,
      message: 'insufficient_funds',
    });
    expect(
      await failure(client.sendTransaction(transfer(alice, bob.address, before.omc + 1n, {}, nonce))),
    ).toMatchObject({ message: 'insufficient_funds' });
    expect(await failure(client.sendRawTransaction('0x1234'))).toMatchObject({ message: 'invalid_transaction' });
    expect(await failure(client.rpcCall('svc_sendRawTransaction', ['zz']))).toMatchObject({
      message: 'invalid_params',
    });
    expect(await failure(client.rpcCall('svc_sendRawTransaction', ['0x123']))).toMatchObject({
      message: 'invalid_params',
    });
    const unknownKind = signTransaction({ chainId: 'svc-devnet-1', kind: 'nope', nonce, payload: {} }, alice);
    expect(await failure(client.sendTransaction(unknownKind))).toMatchObject({ message: 'invalid_transaction' });
    const mint = signTransaction(
      { chainId: 'svc-devnet-1', kind: 'faucet.mint', nonce, payload: { to: alice.address, omc: '1', ogt: '1' } },
      alice,
    );
    expect(await failure(client.sendTransaction(mint))).toMatchObject({
      message: 'invalid_transaction',
      data: { reason: expect.stringContaining('only the faucet account') },
    });
    const badPayload = signTransaction(
      { chainId: 'svc-devnet-1', kind: 'transfer', nonce, payload: { to: bob.address, asset: 'OMC', amount: '-5' } },
      alice,
    );
    expect(await failure(client.sendTransaction(badPayload))).toMatchObject({ message: 'invalid_transaction' });

    // Nothing of that reached a block: the next block leaves alice's balance and nonce as they were.
    const head = await client.blockNumber();
    await new Promise<void>((resolve) => {
      const off: () => void = node.node.events.on('chain:block', (b) => {
        if (b.height > head) {
          off();
          resolve();
        }
      });
    });
    expect((await client.getBalance(alice.address)).omc).toBe(before.omc);
    expect(await client.getNonce(alice.address)).toBe(nonce);
  });

  it('refuses a replay of a mined transaction and a second transaction with a pending nonce', async () => {
    // One nonce ahead of the account's, so it stays pending (a block could take it at once otherwise)
    // until the gap is filled below.
    const next = await client.getNonce(alice.address);
    const tx = transfer(alice, bob.address, 3n, { nonce: next + 1 });
    await client.sendTransaction(tx);
    expect(await failure(client.sendTransaction(tx))).toMatchObject({ code: -32076, message: 'already_known' });
    const sameNonce = transfer(alice, bob.address, 4n, { nonce: tx.nonce });
    expect(await failure(client.sendTransaction(sameNonce))).toMatchObject({ code: -32075, message: 'nonce_conflict' });
    await client.sendTransaction(transfer(alice, bob.address, 5n, { nonce: next }));
    await client.waitForTransaction(tx.hash, { pollMs: 25 });
    expect(await failure(client.sendTransaction(tx))).toMatchObject({ message: 'already_known' });
    expect(await failure(client.sendTransaction(sameNonce))).toMatchObject({ message: 'nonce_too_low' });
  });

  it('accepts several pending transactions of one sender in nonce order and mines them in order', async () => {
    const start = await client.getNonce(alice.address);
    const txs = [0, 1, 2, 3, 4].map((i) => transfer(alice, bob.address, BigInt(i + 1), { nonce: start + i }));
    // Submitted out of order; the mempool holds them until the run is complete.
    for (const tx of [txs[2]!, txs[0]!, txs[1]!, txs[4]!, txs[3]!]) await client.sendTransaction(tx);
    expect(await client.getNonce(alice.address)).toBe(start + 5);
    const receipts = await Promise.all(txs.map((tx) => client.waitForTransaction(tx.hash, { pollMs: 25 })));
    for (let i = 1; i < receipts.length; i++) {
      const [prev, cur] = [receipts[i - 1]!, receipts[i]!];
      expect(
        cur.blockNumber > prev.blockNumber || (cur.blockNumber === prev.blockNumber && cur.index > prev.index),
      ).toBe(true);
    }
  });

  it('answers not_found for unknown transactions and receipts, and says when one is pending', async () => {
    const unknown = `0x${'12'.repeat(32)}`;
    expect(await failure(client.getTransaction(unknown))).toMatchObject({ code: -32030, message: 'not_found' });
    expect(await failure(client.getTransactionReceipt(unknown))).toMatchObject({
      message: 'not_found',
      data: { pending: false },
    });
  });

  it('rejects a raw transaction whose signing bytes are not canonical CBOR', async () => {
    const tx = transfer(alice, bob.address, 1n, { nonce: await client.getNonce(alice.address) });
    const raw = fromHex(rawTransaction(tx));
    // Same values, but the payload map written with its keys in the wrong order.
    const { decode } = await import('../../sdk/encoding.js');
    const [bytes, signature] = decode<[Uint8Array, Uint8Array]>(raw);
    const fields = decode<unknown[]>(bytes);
    const payload = fields[5] as Record<string, unknown>;
    // Canonical order is length-first (to, asset, amount); write it longest-first.
    const manual = new Map<string, unknown>([
      ['amount', payload.amount],
      ['asset', payload.asset],
      ['to', payload.to],
    ]);
    const { encode: cborEncode } = await import('cborg');
    const nonCanonical = cborEncode([fields[0], fields[1], fields[2], fields[3], fields[4], manual], {
      mapSorter: () => 0,
    });
    const tampered = toHex(encode([nonCanonical, signature]));
    expect(await failure(client.sendRawTransaction(tampered))).toMatchObject({
      message: 'invalid_transaction',
      data: { reason: expect.stringContaining('canonical') },
    });
  });
});
