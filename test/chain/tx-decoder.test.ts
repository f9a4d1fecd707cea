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
});
