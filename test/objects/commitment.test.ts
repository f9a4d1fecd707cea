import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CommitmentBuilder,
  PIECE_BYTES,
  pieceCount,
  pieceRoot,
  proveSegment,
  rootOfPieces,
  SEGMENT_BYTES,
  segmentCount,
  verifySegment,
} from '../../objects/commitment.js';

/** The commitment built as an upload builds it: the bytes in chunks of random sizes. */
function streamed(bytes: Uint8Array): ReturnType<CommitmentBuilder['finish']> {
  const builder = new CommitmentBuilder();
  for (let at = 0; at < bytes.length; ) {
    const take = 1 + Math.floor(Math.random() * 100_000);
    builder.update(bytes.subarray(at, at + take));
    at += take;
  }
  return builder.finish();
}

const piecesOf = (bytes: Uint8Array): Uint8Array[] =>
  Array.from({ length: pieceCount(bytes.length) }, (_, i) => bytes.subarray(i * PIECE_BYTES, (i + 1) * PIECE_BYTES));

describe('segment commitment', () => {
  const sizes = [
    0,
    1,
    SEGMENT_BYTES - 1,
    SEGMENT_BYTES,
    SEGMENT_BYTES + 1,
    PIECE_BYTES,
    PIECE_BYTES + 1,
    3 * PIECE_BYTES + 12_345,
  ];

  it('gives the same root streamed in any chunks as built piece by piece', () => {
    for (const size of sizes) {
      const bytes = randomBytes(size);
      const { root, pieceRoots } = streamed(bytes);
      const byPiece = piecesOf(bytes).map(pieceRoot);
      expect(pieceRoots).toEqual(byPiece);
      expect(root).toEqual(rootOfPieces(byPiece));
    }
  });

  it('proves every segment of small objects and random ones of larger, from one piece and the piece roots', () => {
    for (const size of sizes) {
      const bytes = randomBytes(size);
      const { root, pieceRoots } = streamed(bytes);
      const count = segmentCount(size);
      const indexes =
        count <= 300
          ? Array.from({ length: count }, (_, i) => i)
          : Array.from({ length: 50 }, () => Math.floor(Math.random() * count));
      for (const index of indexes) {
        const piece = piecesOf(bytes)[Math.floor(index / 256)]!;
        const proof = proveSegment(index, piece, pieceRoots);
        expect(verifySegment(root, size, proof)).toBe(true);
      }
    }
  });

  it('refuses a proof with a changed byte, a wrong index, a path of the wrong length or another root', () => {
    const bytes = randomBytes(2 * PIECE_BYTES + 100);
    const { root, pieceRoots } = streamed(bytes);
    const index = 300;
    const proof = proveSegment(index, piecesOf(bytes)[1]!, pieceRoots);
    const flipped = Uint8Array.from(proof.segment);
    flipped[17]! ^= 1;
    expect(verifySegment(root, bytes.length, { ...proof, segment: flipped })).toBe(false);
    expect(verifySegment(root, bytes.length, { ...proof, index: index + 1 })).toBe(false);
    expect(verifySegment(root, bytes.length, { ...proof, index: -1 })).toBe(false);
    expect(verifySegment(root, bytes.length, { ...proof, path: proof.path.slice(1) })).toBe(false);
    expect(verifySegment(streamed(randomBytes(bytes.length)).root, bytes.length, proof)).toBe(false);
    // The last segment is short: a padded or cut copy is refused.
    const last = segmentCount(bytes.length) - 1;
    const tail = proveSegment(last, piecesOf(bytes)[2]!, pieceRoots);
    expect(tail.segment.length).toBe(100);
    expect(verifySegment(root, bytes.length, tail)).toBe(true);
    expect(
      verifySegment(root, bytes.length, { ...tail, segment: Buffer.concat([tail.segment, Buffer.alloc(1)]) }),
    ).toBe(false);
  });
});
