import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, SvcClient, UNIT } from '../../sdk/index.js';
import { accountsOf, accountTransactionKey } from '../../chain/account-transactions.js';
import { failure } from '../helpers/rpc-failure.js';
import { startTestNode, tempDir, type TestNode } from '../helpers/test-node.js';

// An account's transactions, indexed as each block commits (same batch), on a real node with RocksDB.
const dataDir = tempDir();
let node: TestNode;
let client: SvcClient;
const sender = devnetKey('account', 4);
const recipient = generateKeyPair();
const sent: string[] = [];

beforeAll(async () => {
  node = await startTestNode({ dataDir, validator: { blockTime: 100 } });
  client = new SvcClient(node.url);
  // Five transfers to one recipient, in different blocks, then a faucet grant to it.
  for (let i = 1; i <= 5; i++) {
    const tx = await client.transfer(sender, recipient.address, 'OMC', BigInt(i) * UNIT);
    await client.waitForTransaction(tx.hash, { pollMs: 25 });
    sent.push(tx.hash);
  }
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

describe("an account's transactions (svc_listTransactions)", () => {
  it('lists what the account signed and what names it, newest first, in pages that join up', async () => {
    const grant = await client.faucetRequest(recipient.address);
    await client.waitForTransaction(grant.txHash, { pollMs: 25 });
    const all = await client.listTransactions(recipient.address);
    expect(all.transactions.map((tx) => tx.hash)).toEqual([grant.txHash, ...[...sent].reverse()]);
    expect(all.transactions[1]).toMatchObject({
      status: 'mined',
      kind: 'transfer',
      from: sender.address,
      payload: { to: recipient.address, amount: (5n * UNIT).toString() },
    });
    expect(all).toMatchObject({ cursor: null, indexedFrom: 0 });
    // The signer's list has its transfers too.
    expect((await client.listTransactions(sender.address, { limit: 100 })).transactions.map((tx) => tx.hash)).toEqual(
      expect.arrayContaining(sent),
    );

    const first = await client.listTransactions(recipient.address, { limit: 2 });
    expect(first.transactions.map((tx) => tx.hash)).toEqual(all.transactions.slice(0, 2).map((tx) => tx.hash));
    expect(first.cursor).toMatch(/^\d+:\d+$/);
    const second = await client.listTransactions(recipient.address, { limit: 2, cursor: first.cursor! });
    const third = await client.listTransactions(recipient.address, { limit: 2, cursor: second.cursor! });
    expect([...first.transactions, ...second.transactions, ...third.transactions].map((tx) => tx.hash)).toEqual(
      all.transactions.map((tx) => tx.hash),
    );
    expect(third.cursor).toBeNull();
  });

  it('answers an empty list for an account nothing named, and refuses a bad address, limit or cursor', async () => {
    expect(await client.listTransactions(generateKeyPair().address)).toEqual({
      transactions: [],
      cursor: null,
      indexedFrom: 0,
    });
    expect(await failure(client.rpcCall('svc_listTransactions', [{ address: 'svc1nothex' }]))).toMatchObject({
      message: 'invalid_address',
    });
    // svc_ methods take svc1 names only; for an 0x one the error names the same account's svc1 form.
    const eth = `0x${recipient.address.slice(4)}`;
    expect(await failure(client.rpcCall('svc_listTransactions', [{ address: eth }]))).toMatchObject({
      message: 'invalid_address',
      data: {
        field: 'address',
        reason: `address is not a valid address (svc1 followed by 40 hex characters); ${eth} is the account ${recipient.address}`,
      },
    });
    expect(await failure(client.rpcCall('svc_getBalance', [eth]))).toMatchObject({
      data: { reason: expect.stringContaining(`is the account ${recipient.address}`) },
    });
    expect(
      await failure(client.rpcCall('svc_listTransactions', [{ address: recipient.address, limit: 101 }])),
    ).toMatchObject({ message: 'invalid_params', data: { field: 'limit' } });
    expect(
      await failure(client.rpcCall('svc_listTransactions', [{ address: recipient.address, cursor: 'tomorrow' }])),
    ).toMatchObject({ message: 'invalid_params' });
    expect(
      await failure(client.rpcCall('svc_listTransactions', [{ address: recipient.address, extra: 1 }])),
    ).toMatchObject({ message: 'invalid_params' });
  });

  it('keeps the index across a restart on the same data dir', async () => {
    const before = await client.listTransactions(recipient.address);
    await node.stop();
    node = await startTestNode({ dataDir, validator: { blockTime: 100 } });
    client = new SvcClient(node.url);
    expect(await client.listTransactions(recipient.address)).toEqual(before);
  });
});

describe('the accounts a transaction concerns', () => {
  it('are its signer and every address its payload names, each once, however deep a list holds them', () => {
    const [a, b, c] = [generateKeyPair().address, generateKeyPair().address, generateKeyPair().address];
    expect(accountsOf({ from: a, payload: { to: b, asset: 'OMC', amount: '1' } })).toEqual([a, b]);
    expect(accountsOf({ from: a, payload: { providers: [b, c, b], note: 'svc1 is not an address' } })).toEqual([
      a,
      b,
      c,
    ]);
    expect(accountsOf({ from: a, payload: { to: a.toUpperCase().replace('SVC1', 'svc1') } })).toEqual([a]);
  });

  it("are keyed by address, then height, then index, so one account's entries sort together oldest first", () => {
    const address = generateKeyPair().address;
    const key = { address, height: 70_000, index: 3 };
    expect(accountTransactionKey.decode(accountTransactionKey.encode(key))).toEqual(key);
    const a = Buffer.from(accountTransactionKey.encode({ address, height: 9, index: 500 }));
    const b = Buffer.from(accountTransactionKey.encode({ address, height: 10, index: 0 }));
    expect(Buffer.compare(a, b)).toBe(-1);
  });
});
