import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { nativeKeccak256 } from '../../chain/native-keccak.js';

describe('native Keccak-256', () => {
  it("loads from the keccak package's prebuilt binary on this platform", () => {
    expect(nativeKeccak256).toBeTypeOf('function');
  });

  it('hashes as the JavaScript Keccak-256 does, at and around the sponge rate of 136 bytes, one call after another', () => {
    const hash = nativeKeccak256!;
    for (const length of [0, 1, 31, 32, 135, 136, 137, 271, 272, 273, 1000]) {
      const message = Uint8Array.from({ length }, (_, i) => (i * 131 + length) & 0xff);
      expect(Uint8Array.from(hash(message)), `${length} bytes`).toEqual(Uint8Array.from(keccak_256(message)));
    }
  });

  it('gives each hash its own bytes: a later hash does not change an earlier one', () => {
    const first = nativeKeccak256!(new Uint8Array([1, 2, 3]));
    const copy = Uint8Array.from(first);
    nativeKeccak256!(new Uint8Array([4, 5, 6]));
    expect(Uint8Array.from(first)).toEqual(copy);
  });

  it('hashes a view into a larger buffer as its own bytes only', () => {
    const backing = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
    const view = backing.subarray(50, 250);
    expect(Uint8Array.from(nativeKeccak256!(view))).toEqual(Uint8Array.from(keccak_256(view)));
  });
});
