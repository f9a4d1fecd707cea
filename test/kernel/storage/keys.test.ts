import { describe, expect, it } from 'vitest';
import { readU64Key, u64Key } from '../../../kernel/storage/keys.js';
import { accountTransactionKey } from '../../../chain/account-transactions.js';

/** The big-endian u64 as DataView writes it: what every key on disk was written as. */
const viaDataView = (value: bigint): Uint8Array => {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value);
  return out;
};

describe('numeric keys', () => {
  it('write a u64 big-endian, the same bytes as before, for numbers and bigints over the whole range', () => {
    const values = [0, 1, 255, 256, 65_535, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 12_345, 2 ** 53 - 1];
    for (const n of values) {
      expect([...u64Key(n)], String(n)).toEqual([...viaDataView(BigInt(n))]);
      expect(readU64Key(u64Key(n))).toBe(BigInt(n));
    }
    expect([...u64Key(2n ** 64n - 1n)]).toEqual([...viaDataView(2n ** 64n - 1n)]);
    expect(() => u64Key(1.5)).toThrow(RangeError);
  });

  it("put an account's entries in height order, then index order, and read back what was written", () => {
    const address = 'svc1f39fd6e51aad88f6f4ce6ab8827279cfffb92266' as const;
    const keys = [
      { address, height: 2 ** 32 + 1, index: 0 },
      { address, height: 1, index: 2 ** 32 - 1 },
      { address, height: 1, index: 3 },
      { address, height: 256, index: 0 },
    ].map((entry) => ({ entry, key: accountTransactionKey.encode(entry) }));
    for (const { entry, key } of keys) expect(accountTransactionKey.decode(key)).toEqual(entry);
    const order = [...keys]
      .sort((a, b) => Buffer.compare(a.key, b.key))
      .map(({ entry }) => [entry.height, entry.index]);
    expect(order).toEqual([
      [1, 3],
      [1, 2 ** 32 - 1],
      [256, 0],
      [2 ** 32 + 1, 0],
    ]);
  });
});
