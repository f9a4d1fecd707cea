import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressFromPublicKey,
  amountFromNumber,
  decodeTransaction,
  devnetKey,
  formatAmount,
  formatAmountShort,
  fromHex,
  generateKeyPair,
  isValidAddress,
  normalizeAddress,
  parseAmount,
  rawTransaction,
  RpcError,
  signTransaction,
  SvcClient,
  transferPayload,
  UNIT,
  verify,
} from '../../sdk/index.js';
import { verifyEd25519, verifyRemembered } from '../../chain/signatures.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';

describe('sdk: amounts', () => {
  it('parses and formats 18-decimal amounts with bigint only', () => {
    expect(parseAmount('10')).toBe(10n * UNIT);
    expect(parseAmount('0.000000000000000001')).toBe(1n);
    expect(parseAmount('1.5')).toBe(15n * 10n ** 17n);
    expect(formatAmount(10n * UNIT)).toBe('10.000000000000000000');
    expect(formatAmount(1n)).toBe('0.000000000000000001');
    expect(formatAmountShort(25n * 10n ** 17n)).toBe('2.5');
    expect(formatAmountShort(5n * UNIT)).toBe('5');
    for (const bad of ['', '-1', '1.', '.5', '1e3', '01', '1.0000000000000000001', 'abc', ' 1 2'])
      expect(() => parseAmount(bad), bad).toThrow(RangeError);
  });

  it('converts JSON numbers from their decimal text, never through float arithmetic', () => {
    expect(amountFromNumber(1000)).toBe(1000n * UNIT);
    expect(amountFromNumber(0.1)).toBe(10n ** 17n);
    expect(amountFromNumber(1500.25)).toBe(150025n * 10n ** 16n);
    expect(amountFromNumber(1e21)).toBe(10n ** 21n * UNIT);
    expect(amountFromNumber(1.5e-7)).toBe(15n * 10n ** 10n);
    expect(() => amountFromNumber(-1)).toThrow();
    expect(() => amountFromNumber(Number.NaN)).toThrow();
  });
});

describe('sdk: addresses and keys', () => {
  it('validates svc1 + 40 hex, lowercase prefix only, hex case-insensitive', () => {
    expect(isValidAddress(`svc1${'a'.repeat(40)}`)).toBe(true);
    expect(isValidAddress(`svc1${'A'.repeat(40)}`)).toBe(true);
    expect(isValidAddress(`SVC1${'a'.repeat(40)}`)).toBe(false);
    expect(isValidAddress(`svc1${'a'.repeat(41)}`)).toBe(false);
    expect(isValidAddress(42)).toBe(false);
    expect(normalizeAddress(`svc1${'AB'.repeat(20)}`)).toBe(`svc1${'ab'.repeat(20)}`);
    const key = generateKeyPair();
    expect(key.address).toBe(addressFromPublicKey(key.publicKey));
    expect(devnetKey('account', 3).address).toBe(devnetKey('account', 3).address);
  });

  it('signs with @noble in a way node:crypto verifies, and verifies what node:crypto signs', () => {
    const key = devnetKey('account', 0);
    const tx = signTransaction(
      {
        chainId: 'svc-devnet-1',
        kind: 'transfer',
        nonce: 7,
        payload: transferPayload(devnetKey('account', 1).address, 'OGT', 42n),
      },
      key,
    );
    expect(verifyEd25519(fromHex(tx.signature), fromHex(tx.hash), key.publicKey)).toBe(true);
    expect(verifyEd25519(fromHex(tx.signature), fromHex(tx.hash), devnetKey('account', 1).publicKey)).toBe(false);
    // Remembering a verified signature accepts nothing else: another message, signature or key still fails.
    expect(verifyRemembered(fromHex(tx.signature), fromHex(tx.hash), key.publicKey)).toBe(true);
    const otherMessage = fromHex(tx.hash);
    otherMessage[0]! ^= 1;
    expect(verifyRemembered(fromHex(tx.signature), otherMessage, key.publicKey)).toBe(false);
    const otherSignature = fromHex(tx.signature);
    otherSignature[63]! ^= 1;
    expect(verifyRemembered(otherSignature, fromHex(tx.hash), key.publicKey)).toBe(false);
    expect(verifyRemembered(fromHex(tx.signature), fromHex(tx.hash), devnetKey('account', 1).publicKey)).toBe(false);
    expect(verifyRemembered(fromHex(tx.signature), fromHex(tx.hash), key.publicKey)).toBe(true);
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const message = new TextEncoder().encode('hello');
    expect(verify(nodeSign(null, message, privateKey), message, raw)).toBe(true);
  });

  it('round-trips a signed transaction through its raw encoding', () => {
    const key = devnetKey('account', 0);
    const tx = signTransaction(
      {
        chainId: 'svc-devnet-1',
        kind: 'transfer',
        nonce: 1,
        payload: transferPayload(devnetKey('account', 1).address, 'OMC', 10n ** 30n),
      },
      key,
    );
    expect(decodeTransaction(fromHex(rawTransaction(tx)))).toEqual(tx);
  });

  it('uses no Node built-ins and no kernel code, so it runs in browsers', () => {
    for (const file of readdirSync('sdk')) {
      const source = readFileSync(`sdk/${file}`, 'utf8');
      expect(source, file).not.toMatch(/from ['"]node:/);
      expect(source, file).not.toMatch(/from ['"]\.\.\/(kernel|plugins)\//);
    }
  });
});

describe('sdk: client against a running node', () => {
  let node: TestNode;
  let client: SvcClient;
  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 50 } });
    client = new SvcClient(node.url);
  });
  afterAll(async () => {
    await node.stop();
  });

  it('getBalance gives human amounts with 18 fractional digits and base-unit bigints', async () => {
    const balance = await client.getBalance(devnetKey('account', 8).address);
    expect(balance).toMatchObject({
      address: devnetKey('account', 8).address,
      balanceOMC: '1000000.000000000000000000',
      balanceOGT: '10000.000000000000000000',
      omc: 1_000_000n * UNIT,
      ogt: 10_000n * UNIT,
    });
  });

  it('getBalance names the block it read: the head when none is asked, the block asked otherwise', async () => {
    const address = devnetKey('account', 8).address;
    await waitFor(
      () => client.blockNumber(),
      (h) => h >= 3,
      10_000,
      'height 3',
    );
    const before = await client.blockNumber();
    const atHead = await client.getBalance(address);
    const after = await client.blockNumber();
    expect(atHead.blockNumber).toBeGreaterThanOrEqual(before);
    expect(atHead.blockNumber).toBeLessThanOrEqual(after);
    expect((await client.getBalance(address, 2)).blockNumber).toBe(2);
  });

  it('validates parameters before sending anything', async () => {
    const offline = new SvcClient({ url: node.url, fetch: () => Promise.reject(new Error('must not be called')) });
    await expect(offline.getBalance('svc1nope')).rejects.toMatchObject({
      code: -32602,
      message: 'invalid_address',
      data: { field: 'address' },
    });
    await expect(offline.faucetRequest('0x1234')).rejects.toBeInstanceOf(RpcError);
    await expect(offline.getTransaction('0x12')).rejects.toMatchObject({
      message: 'invalid_params',
      data: { field: 'hash' },
    });
    await expect(offline.getBlockByNumber(-1)).rejects.toMatchObject({ message: 'invalid_params' });
  });

  it('surfaces node errors as RpcError with code, snake_case message and data', async () => {
    const error = await client.getBlockByNumber(10_000_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32030, message: 'not_found', data: { reason: expect.any(String) } });
  });

  it('batches calls and returns each result or error in order', async () => {
    const results = await client.batch([
      { method: 'svc_blockNumber' },
      { method: 'svc_nope' },
      { method: 'svc_getBalance', params: [devnetKey('account', 0).address] },
    ]);
    expect(results[0]).toMatchObject({ ok: true, result: expect.any(Number) });
    expect(results[1]).toMatchObject({ ok: false, error: { code: -32601 } });
    expect(results[2]).toMatchObject({ ok: true, result: { address: devnetKey('account', 0).address } });
  });

  it('sends a transfer and waits for its receipt; chain and node info describe the node', async () => {
    const tx = await client.transfer(devnetKey('account', 6), devnetKey('account', 7).address, 'OMC', 3n * UNIT);
    expect(await client.waitForTransaction(tx.hash, { pollMs: 20 })).toMatchObject({ status: 'success' });
    expect(await client.chainInfo()).toMatchObject({
      network: 'devnet',
      chainId: 'svc-devnet-1',
      archive: false,
      historyBlocks: 10000,
    });
    const info = await client.nodeInfo();
    expect(info).toMatchObject({
      role: 'validator',
      network: 'devnet',
      synced: true,
      peerId: expect.stringMatching(/^12D3KooW/),
    });
    expect(info.plugins.map((p) => p.name)).toEqual(
      expect.arrayContaining(['chain', 'validator', 'metrics', 'faucet']),
    );
    const doc = await client.discover();
    expect(doc.methods.map((m) => m.name)).toEqual(
      expect.arrayContaining(['svc_getBalance', 'faucet_request', 'svc_nodeInfo', 'rpc.discover']),
    );
    await expect(
      client.waitForTransaction(`0x${'77'.repeat(32)}`, { timeoutMs: 100, pollMs: 20 }),
    ).rejects.toMatchObject({ message: 'not_found' });
  });
});
