import { describe, expect, it } from 'vitest';
import { merkleRoot } from '../../sdk/hash.js';
import { merkleRootPaced } from '../../chain/merkle.js';
import { Pacer } from '../../chain/pacer.js';

describe('paced Merkle root', () => {
  it('gives the SDK merkleRoot for empty, odd, even and large leaf lists, also when it pauses at every step', async () => {
    for (const count of [0, 1, 2, 3, 7, 8, 1000]) {
      const leaves = Array.from({ length: count }, (_, i) => new Uint8Array([i & 255, i >> 8, 42]));
      expect(await merkleRootPaced(leaves, new Pacer())).toEqual(merkleRoot(leaves));
      expect(await merkleRootPaced(leaves, new Pacer(0))).toEqual(merkleRoot(leaves));
    }
  });
});
