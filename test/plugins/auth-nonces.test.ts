import { describe, expect, it } from 'vitest';
import { NonceLedger } from '../../plugins/auth/nonces.js';

describe('nonce ledger', () => {
  const now = 1_800_000_000_000;

  it('accepts a nonce once per principal inside the window', () => {
    const ledger = new NonceLedger(300_000, 1000);
    expect(ledger.check('a', `${now}.abcdefgh`, now)).toEqual({ ok: true });
    expect(ledger.check('a', `${now}.abcdefgh`, now + 1).ok).toBe(false);
    expect(ledger.check('b', `${now}.abcdefgh`, now + 1).ok).toBe(true);
    expect(ledger.check('a', `${now - 300_001}.abcdefgh`, now).ok).toBe(false);
    expect(ledger.check('a', `${now}.abc`, now).ok).toBe(false);
    expect(ledger.check('a', `${now}.${'x'.repeat(65)}`, now).ok).toBe(false);
    expect(ledger.check('a', `${now}.abc$efgh`, now).ok).toBe(false);
  });

  it('forgets nonces once their time has left the window, so memory follows the window', () => {
    const ledger = new NonceLedger(10_000, 1_000_000);
    for (let i = 0; i < 100; i++) ledger.check('a', `${now + i * 1000}.nonce${i}xx`, now + i * 1000);
    expect(ledger.size).toBeLessThanOrEqual(13);
  });

  it('stays under its cap under any rate without ever accepting a replay', () => {
    const ledger = new NonceLedger(300_000, 1000);
    const accepted: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const nonce = `${now + Math.floor(i / 100) * 1000}.n${String(i).padStart(8, '0')}`;
      if (ledger.check('a', nonce, now + Math.floor(i / 100) * 1000).ok) accepted.push(nonce);
      expect(ledger.size).toBeLessThanOrEqual(1000);
    }
    expect(accepted.length).toBe(10_000);
    for (const nonce of accepted) expect(ledger.check('a', nonce, now + 100_000).ok).toBe(false);
  });
});
