import { hash } from 'node:crypto';
import type { Pacer } from '../pacer.js';

const BUCKET_BITS = 12;
export const BUCKETS = 1 << BUCKET_BITS;
/** Children per tree node: 16, so three levels over the buckets (a block's changes rehash ~130 nodes, not ~850 as a binary tree's 12 levels would). */
const FANOUT_BITS = 4;
const LEVELS = BUCKET_BITS / FANOUT_BITS;
const ZERO = Buffer.alloc(32);
const LEAF = Buffer.from([0]);
const BUCKET = Buffer.from([1]);
const NODE = Buffer.from([2]);

/** Where the parts of one hash input are put together (grown as needed): no buffer per hash. */
let scratch = Buffer.alloc(1024);

/** SHA-256 of the parts' concatenation (one-shot: cheaper than a Hash object for small inputs). */
function sha256(...parts: Uint8Array[]): Buffer {
  return parts.length === 1 ? hash('sha256', parts[0]!, 'buffer') : sha256List(parts[0]!, parts, 1, parts.length);
}

/** SHA-256 of `tag` followed by `items[from..to)`. */
function sha256List(tag: Uint8Array, items: readonly Uint8Array[], from: number, to: number): Buffer {
  let length = tag.length;
  for (let i = from; i < to; i++) length += items[i]!.length;
  if (length > scratch.length) scratch = Buffer.alloc(Math.max(length, scratch.length * 2));
  scratch.set(tag, 0);
  let offset = tag.length;
  for (let i = from; i < to; i++) {
    scratch.set(items[i]!, offset);
    offset += items[i]!.length;
  }
  return hash('sha256', scratch.subarray(0, offset), 'buffer');
}

/** A key's leaf: H(0x00 ‖ key ‖ 0x00 ‖ H(value)). */
export function leafHash(key: string, value: Uint8Array): Buffer {
  return sha256(LEAF, Buffer.from(key, 'utf8'), LEAF, sha256(value));
}

/** The hash of a bucket from its leaves in key order (32 zero bytes for none). */
export function hashOfLeaves(leaves: readonly Uint8Array[]): Buffer {
  return leaves.length === 0 ? ZERO : sha256List(BUCKET, leaves, 0, leaves.length);
}

/** The hash of a bucket holding these entries (in any order): what the tree over the buckets commits to. */
export function bucketHash(entries: Iterable<readonly [string, Uint8Array]>): Buffer {
  return hashOfLeaves(
    [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => leafHash(key, value)),
  );
}

/** The root over every bucket's hash (`BUCKETS` of them, in order): the state root those buckets make. */
export function rootOfBuckets(buckets: readonly Uint8Array[]): Buffer {
  if (buckets.length !== BUCKETS) throw new RangeError(`expected ${BUCKETS} bucket hashes, got ${buckets.length}`);
  let level: readonly Uint8Array[] = buckets;
  for (let depth = LEVELS - 1; depth >= 0; depth--) {
    const up: Buffer[] = [];
    for (let i = 0; i < level.length; i += 1 << FANOUT_BITS)
      up.push(sha256List(NODE, level, i, i + (1 << FANOUT_BITS)));
    level = up;
  }
  return level[0] as Buffer;
}

/** The bucket of a state key: the first 12 bits of SHA-256(key). */
export function bucketOf(key: string): number {
  const digest = sha256(Buffer.from(key, 'utf8'));
  return (digest[0]! << 4) | (digest[1]! >> 4);
}

/**
 * A Merkle commitment to every (key, value) of the world state, updated incrementally.
 * Keys fall into 4,096 buckets; a bucket's hash covers its leaves in key order
 * (leaf = H(0x00 ‖ key ‖ 0x00 ‖ H(value))); the root is a 16-ary Merkle tree over the bucket hashes
 * (node = H(0x02 ‖ its 16 children); an empty bucket is 32 zero bytes). A proof of one key is its
 * bucket's leaves plus 15 sibling hashes at each of the 3 levels.
 */
export class StateCommitment {
  private readonly leaves = new Map<string, Buffer>();
  private readonly bucketKeys: Set<string>[] = Array.from({ length: BUCKETS }, () => new Set());
  private readonly keyBucket = new Map<string, number>();
  /** tree[0] = the root ... tree[LEVELS] = bucket hashes. */
  private readonly tree: Buffer[][] = [];
  private readonly dirty = new Set<number>();
  /** Parents (one level up) of buckets rehashed since the tree above them was last updated. */
  private hashedBuckets = new Set<number>();

  constructor() {
    for (let level = 0; level <= LEVELS; level++)
      this.tree.push(new Array<Buffer>(1 << (level * FANOUT_BITS)).fill(ZERO));
    for (let level = LEVELS - 1; level >= 0; level--) {
      for (let i = 0; i < 1 << (level * FANOUT_BITS); i++) this.hashNode(level, i);
    }
  }

  private hashNode(level: number, i: number): void {
    const first = i << FANOUT_BITS;
    this.tree[level]![i] = sha256List(NODE, this.tree[level + 1]!, first, first + (1 << FANOUT_BITS));
  }

  /** Sets `key` (undefined: deletes it); `knownBucket` is its bucket when the caller computed it already. */
  set(key: string, value: Uint8Array | undefined, knownBucket?: number): void {
    let bucket = this.keyBucket.get(key);
    if (bucket === undefined) {
      if (value === undefined) return;
      bucket = knownBucket ?? bucketOf(key);
      this.keyBucket.set(key, bucket);
    }
    if (value === undefined) {
      this.leaves.delete(key);
      this.bucketKeys[bucket]!.delete(key);
      this.keyBucket.delete(key);
    } else {
      this.leaves.set(key, leafHash(key, value));
      this.bucketKeys[bucket]!.add(key);
    }
    this.dirty.add(bucket);
  }

  /**
   * Takes entries whose leaves and buckets were hashed elsewhere (a snapshot's chunk, on a worker
   * thread), `hashes[i]` the checked hash of bucket `first + i`; those buckets must be empty here.
   */
  adopt(
    entries: readonly (readonly [string, Uint8Array])[],
    hashed: { readonly buckets: Uint16Array; readonly leaves: Uint8Array },
    first: number,
    hashes: readonly Buffer[],
  ): void {
    for (let bucket = first; bucket < first + hashes.length; bucket++)
      if (this.bucketKeys[bucket]!.size > 0) throw new Error(`bucket ${bucket} holds keys already`);
    const leaves = Buffer.from(hashed.leaves.buffer, hashed.leaves.byteOffset, hashed.leaves.byteLength);
    for (const [i, [key]] of entries.entries()) {
      const bucket = hashed.buckets[i]!;
      this.leaves.set(key, leaves.subarray(i * 32, i * 32 + 32));
      this.keyBucket.set(key, bucket);
      this.bucketKeys[bucket]!.add(key);
    }
    for (const [i, hash] of hashes.entries()) {
      this.tree[LEVELS]![first + i] = hash;
      this.hashedBuckets.add((first + i) >> FANOUT_BITS);
    }
  }

  root(): Buffer {
    if (this.dirty.size > 0 || this.hashedBuckets.size > 0) this.recompute();
    return this.tree[0]![0]!;
  }

  /** Every bucket's hash, in order, as the root now commits to them (a copy: later changes replace, never mutate, a hash). */
  bucketHashes(): Buffer[] {
    this.root();
    return [...this.tree[LEVELS]!];
  }

  /** The hash of one bucket as it now stands (hashed now if it changed). */
  bucketHash(bucket: number): Buffer {
    if (this.dirty.has(bucket)) this.hashBucket(bucket);
    return this.tree[LEVELS]![bucket]!;
  }

  /** `root()`, pausing between buckets for the event loop (large blocks touch thousands). */
  async rootPaced(pacer: Pacer): Promise<Buffer> {
    for (const bucket of [...this.dirty]) {
      this.hashBucket(bucket);
      const pause = pacer.step();
      if (pause) await pause;
    }
    return this.root();
  }

  private hashBucket(bucket: number): void {
    const keys = [...this.bucketKeys[bucket]!].sort();
    this.tree[LEVELS]![bucket] = hashOfLeaves(keys.map((k) => this.leaves.get(k)!));
    this.dirty.delete(bucket);
    this.hashedBuckets.add(bucket >> FANOUT_BITS);
  }

  private recompute(): void {
    for (const bucket of [...this.dirty]) this.hashBucket(bucket);
    let touched = this.hashedBuckets;
    this.hashedBuckets = new Set();
    for (let level = LEVELS - 1; level >= 0; level--) {
      const next = new Set<number>();
      for (const i of touched) {
        this.hashNode(level, i);
        next.add(i >> FANOUT_BITS);
      }
      touched = next;
    }
  }
}
