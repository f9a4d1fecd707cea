import { describe, expect, it } from 'vitest';
import { decodeAccount, encodeAccount, readBalances } from '../../../chain/state/accounts.js';
import { encode } from '../../../sdk/encoding.js';

describe('account encoding', () => {
  it('round-trips, and a decoded account can be changed without changing what the same bytes decode to', () => {
    const bytes = encodeAccount({ omc: 10n ** 30n, ogt: 5n, nonce: 7n, bonded: { compute: 1000n, storage: 0n } });
    const first = decodeAccount(bytes);
    expect(first).toEqual({ omc: 10n ** 30n, ogt: 5n, nonce: 7n, bonded: { compute: 1000n } });
    first.omc = 0n;
    first.nonce = 99n;
    first.bonded.compute = 1n;
    expect(decodeAccount(bytes)).toEqual({ omc: 10n ** 30n, ogt: 5n, nonce: 7n, bonded: { compute: 1000n } });
    // Bytes from elsewhere (as read from disk) decode the same.
    expect(decodeAccount(new Uint8Array(bytes))).toEqual(decodeAccount(bytes));
  });

  it('keeps a nonce up to 2^64 − 1 exactly, and a nonce a number holds as the same bytes as before', () => {
    const max = 2n ** 64n - 1n;
    for (const nonce of [max, max - 1n, 2n ** 53n, 2n ** 53n + 1n]) {
      const account = { omc: 1n, ogt: 0n, nonce, bonded: {} };
      expect(decodeAccount(new Uint8Array(encodeAccount(account)))).toEqual(account);
    }
    // What accounts were encoded as when the nonce was a number (a CBOR integer either way): state roots stay.
    for (const nonce of [0, 7, 2 ** 32, Number.MAX_SAFE_INTEGER])
      expect(encodeAccount({ omc: 1n, ogt: 0n, nonce: BigInt(nonce), bonded: {} })).toEqual(
        encode({ omc: '1', ogt: '0', nonce }),
      );
  });
});

describe('balances read for reports', () => {
  it('are the stored decimal strings, read from each version of an account, and cannot be changed by a reader', () => {
    const before = encodeAccount({ omc: 10n ** 30n, ogt: 5n, nonce: 7n, bonded: { compute: 1000n } });
    const read = readBalances(before);
    expect(read).toEqual({ omc: (10n ** 30n).toString(), ogt: '5', bonded: { compute: '1000' } });
    expect(() => {
      (read as { omc: string }).omc = '0';
    }).toThrow(TypeError);
    expect(readBalances(before).omc).toBe((10n ** 30n).toString());
    // Read once per version of the account: the same bytes again give what they gave.
    expect(readBalances(before)).toBe(read);
    // The account changed: new bytes, new balances.
    const after = encodeAccount({ omc: 1n, ogt: 5n, nonce: 8n, bonded: {} });
    expect(readBalances(after)).toEqual({ omc: '1', ogt: '5', bonded: {} });
    expect(readBalances(undefined)).toEqual({ omc: '0', ogt: '0', bonded: {} });
  });
});
