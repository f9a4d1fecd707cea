import { describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, signTransaction, transferPayload, UNIT } from '../../sdk/index.js';
import { signedInThisProcess } from '../../sdk/transaction.js';

describe('a signed transaction', () => {
  it('is frozen: its fields and payload cannot be changed after signing', () => {
    const tx = signTransaction(
      {
        chainId: 'svc-devnet-1',
        kind: 'transfer',
        nonce: 0,
        payload: transferPayload(generateKeyPair().address, 'OMC', UNIT),
      },
      devnetKey('account', 0),
    );
    expect(Object.isFrozen(tx)).toBe(true);
    expect(() => ((tx as { nonce: number }).nonce = 5)).toThrow(TypeError);
    expect(() => ((tx.payload as { amount: string }).amount = '1')).toThrow(TypeError);
    expect(signedInThisProcess(tx)).toBe(true);
  });

  it('is trusted unverified only while it is what was signed: bytes changed in its payload are noticed', () => {
    const data = new Uint8Array([1, 2, 3]);
    const tx = signTransaction(
      { chainId: 'svc-devnet-1', kind: 'evm.call', nonce: 0, payload: { to: `0x${'11'.repeat(20)}`, data } as never },
      devnetKey('account', 0),
    );
    expect(signedInThisProcess(tx)).toBe(true);
    // The caller's bytes were copied: changing them changes nothing signed.
    data[0] = 9;
    expect(signedInThisProcess(tx)).toBe(true);
    (tx.payload as unknown as { data: Uint8Array }).data[0] = 9;
    expect(signedInThisProcess(tx)).toBe(false);
    // A copy of a signed transaction is not the object that was signed.
    expect(signedInThisProcess({ ...tx })).toBe(false);
  });
});
