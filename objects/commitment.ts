import { createHash } from 'node:crypto';

/**
 * The commitment a storage proof is checked against: a binary SHA-256 Merkle tree over 4 KiB
 * segments of the object. Leaves are sha256(0x00 ‖ segment) (the last segment may be short), inner
 * nodes sha256(0x01 ‖ left ‖ right), so a leaf can never pass for a node. The leaves are padded with
 * zero hashes (32 zero bytes, and their parents) to 256 × a power of two: the tree splits into 1 MiB
 * pieces of 256 segments, the same bytes as the CID's chunks. A node keeps each piece's root, so a
 * proof reads one piece from disk, never the whole object.
 */
export const SEGMENT_BYTES = 4096;
export const SEGMENTS_PER_PIECE = 256;
export const PIECE_BYTES = SEGMENT_BYTES * SEGMENTS_PER_PIECE;
/** Levels inside a piece (log2 of its segments). */
const PIECE_LEVELS = 8;

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

export function leafHash(segment: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF).update(segment).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE).update(left).update(right).digest();
}

/** The root of an empty subtree `level` levels high (level 0: an absent leaf, 32 zero bytes). */
const zeroHashes: Buffer[] = [Buffer.alloc(32)];
export function zeroHash(level: number): Buffer {
  while (zeroHashes.length <= level) zeroHashes.push(nodeHash(zeroHashes.at(-1)!, zeroHashes.at(-1)!));
  return zeroHashes[level]!;
}

/** Pieces of an object of `size` bytes (an empty object has one, empty). */
export function pieceCount(size: number): number {
  return Math.max(1, Math.ceil(size / PIECE_BYTES));
}

/** Segments a proof may be asked for (an empty object has one, empty). */
export function segmentCount(size: number): number {
  return Math.max(1, Math.ceil(size / SEGMENT_BYTES));
}

/** Every level of a tree over `leaves` (padded with zero hashes to 2^height), bottom first. */
function levels(leaves: readonly Buffer[], height: number, baseLevel: number): Buffer[][] {
  const all: Buffer[][] = [leaves.slice()];
  for (let level = 0; level < height; level++) {
    const below = all[level]!;
    const above: Buffer[] = [];
    for (let i = 0; i < below.length; i += 2)
      above.push(nodeHash(below[i]!, below[i + 1] ?? zeroHash(baseLevel + level)));
    if (above.length === 0) above.push(zeroHash(baseLevel + level + 1));
    all.push(above);
  }
  return all;
}

const heightFor = (count: number): number => (count <= 1 ? 0 : Math.ceil(Math.log2(count)));

/** The root over piece roots (the top of the tree). */
export function rootOfPieces(pieceRoots: readonly Buffer[]): Buffer {
  return levels(pieceRoots, heightFor(pieceRoots.length), PIECE_LEVELS).at(-1)![0]!;
}

/** A piece's root from its bytes (up to 1 MiB). */
export function pieceRoot(piece: Uint8Array): Buffer {
  return levels(segmentLeaves(piece), PIECE_LEVELS, 0).at(-1)![0]!;
}

function segmentLeaves(piece: Uint8Array): Buffer[] {
  const leaves: Buffer[] = [];
  for (let at = 0; at < piece.length; at += SEGMENT_BYTES)
    leaves.push(leafHash(piece.subarray(at, at + SEGMENT_BYTES)));
  if (leaves.length === 0) leaves.push(leafHash(new Uint8Array(0)));
  return leaves;
}

/** Builds the commitment as the bytes stream past, one segment at a time (no copy of the object). */
export class CommitmentBuilder {
  private readonly pending = Buffer.alloc(SEGMENT_BYTES);
  private pendingBytes = 0;
  private leaves: Buffer[] = [];
  private readonly pieces: Buffer[] = [];
  private size = 0;

  update(bytes: Uint8Array): void {
    this.size += bytes.length;
    let at = 0;
    // Whole segments straight from the chunk; only a segment split across chunks is copied.
    if (this.pendingBytes > 0) {
      const take = Math.min(SEGMENT_BYTES - this.pendingBytes, bytes.length);
      this.pending.set(bytes.subarray(0, take), this.pendingBytes);
      this.pendingBytes += take;
      at = take;
      if (this.pendingBytes === SEGMENT_BYTES) this.addLeaf(leafHash(this.pending), true);
    }
    for (; at + SEGMENT_BYTES <= bytes.length; at += SEGMENT_BYTES)
      this.addLeaf(leafHash(bytes.subarray(at, at + SEGMENT_BYTES)), false);
    if (at < bytes.length) {
      this.pending.set(bytes.subarray(at), 0);
      this.pendingBytes = bytes.length - at;
    }
  }

  /** The root and every piece's root (32 bytes each, in order). */
  finish(): { root: Buffer; pieceRoots: Buffer[]; size: number } {
    if (this.pendingBytes > 0 || this.size === 0)
      this.addLeaf(leafHash(this.pending.subarray(0, this.pendingBytes)), true);
    if (this.leaves.length > 0) this.closePiece();
    return { root: rootOfPieces(this.pieces), pieceRoots: this.pieces, size: this.size };
  }

  private addLeaf(leaf: Buffer, fromPending: boolean): void {
    if (fromPending) this.pendingBytes = 0;
    this.leaves.push(leaf);
    if (this.leaves.length === SEGMENTS_PER_PIECE) this.closePiece();
  }

  private closePiece(): void {
    this.pieces.push(levels(this.leaves, PIECE_LEVELS, 0).at(-1)![0]!);
    this.leaves = [];
  }
}

/** A segment with the path from its leaf to the root: what a provider answers a challenge with. */
export interface StorageProof {
  readonly index: number;
  readonly segment: Uint8Array;
  /** Sibling hashes, leaf level first. */
  readonly path: readonly Uint8Array[];
}

/**
 * The proof for segment `index`, from the bytes of its piece and the object's piece roots: reading
 * one piece (1 MiB) is all it takes.
 */
export function proveSegment(index: number, piece: Uint8Array, pieceRoots: readonly Buffer[]): StorageProof {
  const inPiece = index % SEGMENTS_PER_PIECE;
  const pieceIndex = Math.floor(index / SEGMENTS_PER_PIECE);
  const path: Buffer[] = [];
  const lower = levels(segmentLeaves(piece), PIECE_LEVELS, 0);
  for (let level = 0, at = inPiece; level < PIECE_LEVELS; level++, at >>= 1)
    path.push(lower[level]![at ^ 1] ?? zeroHash(level));
  const upper = levels(pieceRoots, heightFor(pieceRoots.length), PIECE_LEVELS);
  for (let level = 0, at = pieceIndex; level < upper.length - 1; level++, at >>= 1)
    path.push(upper[level]![at ^ 1] ?? zeroHash(PIECE_LEVELS + level));
  return { index, segment: piece.subarray(inPiece * SEGMENT_BYTES, (inPiece + 1) * SEGMENT_BYTES), path };
}

/** Whether a proof shows segment `proof.index` of an object of `size` bytes under `root`. */
export function verifySegment(root: Uint8Array, size: number, proof: StorageProof): boolean {
  const segments = segmentCount(size);
  if (!Number.isSafeInteger(proof.index) || proof.index < 0 || proof.index >= segments) return false;
  const expectedLength = proof.index === segments - 1 ? size - proof.index * SEGMENT_BYTES : SEGMENT_BYTES;
  if (proof.segment.length !== expectedLength) return false;
  if (proof.path.length !== PIECE_LEVELS + heightFor(pieceCount(size))) return false;
  let hash = leafHash(proof.segment);
  for (let level = 0, at = proof.index; level < proof.path.length; level++, at = Math.floor(at / 2)) {
    const sibling = proof.path[level]!;
    if (sibling.length !== 32) return false;
    hash = at % 2 === 0 ? nodeHash(hash, sibling) : nodeHash(sibling, hash);
  }
  return Buffer.compare(hash, root) === 0;
}
