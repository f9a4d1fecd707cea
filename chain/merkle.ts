import { hash } from 'node:crypto';
import { ZERO_HASH } from '../sdk/hash.js';
import type { Pacer } from './pacer.js';

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

/**
 * The SDK's `merkleRoot` (RFC 6962 style, odd node promoted), computed with node:crypto and pausing
 * for the event loop: a block's transaction and receipt roots hash thousands of leaves.
 */
export async function merkleRootPaced(leaves: readonly Uint8Array[], pacer: Pacer): Promise<Uint8Array> {
  if (leaves.length === 0) return ZERO_HASH;
  let level: Buffer[] = [];
  for (const leaf of leaves) {
    level.push(hash('sha256', Buffer.concat([LEAF, leaf]), 'buffer'));
    const pause = pacer.step();
    if (pause) await pause;
  }
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(right ? hash('sha256', Buffer.concat([NODE, level[i]!, right]), 'buffer') : level[i]!);
      const pause = pacer.step();
      if (pause) await pause;
    }
    level = next;
  }
  return new Uint8Array(level[0]!);
}
