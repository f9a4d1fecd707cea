import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from './bytes.js';

/** Node's native SHA-256 where there is one (several times faster on short inputs); @noble's in a browser. */
const nativeHash = (
  globalThis as {
    process?: {
      getBuiltinModule?(id: 'node:crypto'): {
        hash?(algorithm: 'sha256', data: Uint8Array, encoding: 'buffer'): Uint8Array;
      };
    };
  }
).process?.getBuiltinModule?.('node:crypto').hash;

/** SHA-256. */
export function hash(bytes: Uint8Array): Uint8Array {
  if (!nativeHash) return sha256(bytes);
  const digest = nativeHash('sha256', bytes, 'buffer');
  // A plain Uint8Array, as @noble's: callers compare and store it as one.
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

export const ZERO_HASH = new Uint8Array(32);

const LEAF = new Uint8Array([0]);
const NODE = new Uint8Array([1]);

/**
 * Binary Merkle root over leaf hashes (RFC 6962 style: leaves and inner nodes are domain-separated,
 * an odd node is promoted unchanged). The empty list's root is 32 zero bytes.
 */
export function merkleRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return ZERO_HASH;
  let level: Uint8Array[] = leaves.map((leaf) => sha256(concatBytes(LEAF, leaf)));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1];
      next.push(right ? sha256(concatBytes(NODE, left, right)) : left);
    }
    level = next;
  }
  return level[0]!;
}
