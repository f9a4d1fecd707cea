import { describe, expect, it } from 'vitest';
import { decodeAccount, encodeAccount } from '../../../chain/state/accounts.js';

describe('account encoding', () => {
  it('round-trips, and a decoded account can be changed without changing what the same bytes decode to', () => {
    const bytes = encodeAccount({ omc: 10n ** 30n, ogt: 5n, nonce: 7, bonded: { compute: 1000n, storage: 0n } });
    const first = decodeAccount(bytes);
    expect(first).toEqual({ omc: 10n ** 30n, ogt: 5n, nonce: 7, bonded: { compute: 1000n } });
    first.omc = 0n;
    first.nonce = 99;
    first.bonded.compute = 1n;
    expect(decodeAccount(bytes)).toEqual({ omc: 10n ** 30n, ogt: 5n, nonce: 7, bonded: { compute: 1000n } });
    // Bytes from elsewhere (as read from disk) decode the same.
    expect(decodeAccount(new Uint8Array(bytes))).toEqual(decodeAccount(bytes));
  });
});
