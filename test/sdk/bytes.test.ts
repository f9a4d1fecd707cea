import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../sdk/bytes.js';

describe('hex', () => {
  it('parses 0x-prefixed and bare hex of either case, to a plain array of its own', () => {
    const bytes = fromHex('0x00ff7Fa0');
    expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
    expect([...bytes]).toEqual([0x00, 0xff, 0x7f, 0xa0]);
    // Not a view into a shared pool: its memory is exactly its bytes.
    expect(bytes.buffer.byteLength).toBe(4);
    expect([...fromHex('ABCD')]).toEqual([0xab, 0xcd]);
    expect(fromHex('0x').length).toBe(0);
    expect(toHex(fromHex('0x0123456789abcdef'))).toBe('0x0123456789abcdef');
    // Long hex goes through Node's decoder: the same rules.
    const long = `0X${'0aF9'.repeat(300)}`;
    expect(toHex(fromHex(long))).toBe(`0x${'0af9'.repeat(300)}`);
    expect(fromHex(long).buffer.byteLength).toBe(600);
  });

  it('refuses odd lengths and anything not hex, wherever it is', () => {
    const long = 'ab'.repeat(300);
    for (const bad of [
      '0x0',
      '0xg0',
      '0x0g',
      '0xab0g',
      '0xabcd g',
      '0x+1',
      'zz',
      '0xab cd',
      '0x-1ab',
      '0xé0',
      '0x0\u0100',
      `${long}0g`,
      `0x${long}g0`,
      `0x${long}0`,
    ])
      expect(() => fromHex(bad), bad).toThrow(/not a hex string/);
  });
});
