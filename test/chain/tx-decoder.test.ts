import { afterEach, describe, expect, it } from 'vitest';
import { TxDecoder } from '../../chain/tx-decoder.js';
import { devnetKey, generateKeyPair, UNIT } from '../../sdk/index.js';
import { fromHex } from '../../sdk/bytes.js';
import { rawTransaction, signTransaction, transferPayload } from '../../sdk/transaction.js';

const context = { chainId: 'svc-decoder-1', evmChainId: 0x1234 };
const sender = devnetKey('account', 0);
const to = generateKeyPair().address;
const raw = (nonce: number): Uint8Array =>
  fromHex(
    rawTransaction(
      signTransaction(
        { chainId: context.chainId, kind: 'transfer', nonce, payload: transferPayload(to, 'OMC', UNIT) },
        sender,
      ),
    ),
  );
/** The same transfer with one signature byte flipped. */
const forged = (nonce: number): Uint8Array => {
  const bytes = raw(nonce);
  bytes[bytes.length - 1]! ^= 1;
  return bytes;
};

let decoder: TxDecoder | undefined;
afterEach(async () => {
  await decoder?.close();
});

describe('the transaction decoder', () => {
  it('decodes a few at a time on the calling thread and starts no worker for them', async () => {
    decoder = new TxDecoder(1, context);
    for (let nonce = 0; nonce < 5; nonce++) {
      const [good, bad] = await Promise.all([decoder.decode(raw(nonce)), decoder.decode(forged(nonce))]);
      expect(good).toMatchObject({ tx: { from: sender.address, nonce } });
      expect(bad).toMatchObject({ badSignature: true });
    }
    expect(decoder.workersRunning).toBe(0);
  });

  it('starts its worker at the first flood and gives the same answers there, in order', async () => {
    decoder = new TxDecoder(1, context);
    const raws = Array.from({ length: 200 }, (_, i) => (i % 7 === 3 ? forged(i) : raw(i)));
    const results = await Promise.all(raws.map((bytes) => decoder!.decode(bytes)));
    expect(decoder.workersRunning).toBe(1);
    for (const [i, result] of results.entries())
      expect(result).toMatchObject(i % 7 === 3 ? { badSignature: true } : { tx: { nonce: i, from: sender.address } });
  });

  it('decodes an urgent transaction ahead of a flood queued before it, and the flood still in order', async () => {
    decoder = new TxDecoder(1, context);
    const flood = Array.from({ length: 2_000 }, (_, i) => raw(i));
    let floodDone = 0;
    const floodResults = flood.map((bytes) =>
      decoder!.decode(bytes).then((result) => {
        floodDone++;
        return result;
      }),
    );
    // Once the first batches are at the worker: the rest of the flood is queued here.
    await floodResults[0];
    const urgent = await decoder.decode(raw(9_999), true);
    expect(urgent).toMatchObject({ tx: { nonce: 9_999, from: sender.address } });
    // At most the batches already at the worker went first (2 of 256), not the flood's 2,000.
    expect(floodDone).toBeLessThan(flood.length / 2);
    const results = await Promise.all(floodResults);
    for (const [i, result] of results.entries()) expect(result).toMatchObject({ tx: { nonce: i } });
  });
});
