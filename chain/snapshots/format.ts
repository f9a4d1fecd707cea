import { createHash } from 'node:crypto';
import { toHex } from '../../sdk/bytes.js';
import { decode, encode } from '../../sdk/encoding.js';
import { BUCKETS, bucketOf, rootOfBuckets } from '../state/state-root.js';

/**
 * A state snapshot: the whole state after one block, in chunks a node can check one by one. The state
 * root is a tree over 4,096 buckets (chain/state/state-root.ts); the manifest carries every bucket's
 * hash, so once the manifest's buckets give the root of a header the node trusts, each chunk — the
 * entries of a run of buckets — is checked on its own against them, and a bad chunk is known (and its
 * sender) the moment it arrives.
 */
export interface SnapshotManifest {
  readonly format: 1;
  readonly height: number;
  readonly blockHash: string;
  readonly stateRoot: string;
  /** Every bucket's hash, 32 bytes each, in bucket order. */
  readonly buckets: Uint8Array;
  readonly chunks: readonly ChunkInfo[];
}

export interface ChunkInfo {
  /** The first and last bucket whose entries the chunk holds (all of them). */
  readonly first: number;
  readonly last: number;
  readonly entries: number;
  readonly bytes: number;
  /** SHA-256 of the chunk's bytes: tells a damaged file on disk from a good one before anything is decoded. */
  readonly digest: string;
}

/** A snapshot that does not check out: `reason` says which check, naming the chunk. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

/** A chunk's size is aimed at this many bytes (whole buckets: a chunk never splits one). */
export const CHUNK_TARGET_BYTES = 1024 * 1024;

const digestOf = (bytes: Uint8Array): string => toHex(createHash('sha256').update(bytes).digest());

/** Splits a state into chunks of whole buckets, with the manifest that describes them. */
export function chunkState(
  at: { height: number; blockHash: string; stateRoot: string },
  state: ReadonlyMap<string, Uint8Array>,
  buckets: readonly Uint8Array[],
): { manifest: SnapshotManifest; chunks: Uint8Array[] } {
  const byBucket: [string, Uint8Array][][] = Array.from({ length: BUCKETS }, () => []);
  for (const entry of state) byBucket[bucketOf(entry[0])]!.push(entry);
  const chunks: Uint8Array[] = [];
  const infos: ChunkInfo[] = [];
  let first = 0;
  let pending: [string, Uint8Array][] = [];
  let size = 0;
  const close = (last: number): void => {
    const bytes = encode(pending);
    chunks.push(bytes);
    infos.push({ first, last, entries: pending.length, bytes: bytes.length, digest: digestOf(bytes) });
    first = last + 1;
    pending = [];
    size = 0;
  };
  for (let bucket = 0; bucket < BUCKETS; bucket++) {
    for (const entry of byBucket[bucket]!.sort(([a], [b]) => (a < b ? -1 : 1))) {
      pending.push(entry);
      size += entry[0].length + entry[1].length + 8;
    }
    if (size >= CHUNK_TARGET_BYTES || bucket === BUCKETS - 1) close(bucket);
  }
  return {
    manifest: {
      format: 1,
      height: at.height,
      blockHash: at.blockHash,
      stateRoot: at.stateRoot,
      buckets: Buffer.concat(buckets.map((b) => Buffer.from(b))),
      chunks: infos,
    },
    chunks,
  };
}

/** The manifest's bucket hashes. */
export function manifestBuckets(manifest: SnapshotManifest): Buffer[] {
  return Array.from({ length: BUCKETS }, (_, i) => Buffer.from(manifest.buckets.subarray(i * 32, i * 32 + 32)));
}

/** Why a manifest cannot be the snapshot of a block with `stateRoot` at `height`, or undefined. */
export function manifestProblem(manifest: SnapshotManifest, height: number, stateRoot: string): string | undefined {
  if (manifest.format !== 1) return `format ${String(manifest.format)} is not 1`;
  if (manifest.height !== height) return `it is of block ${manifest.height}, not ${height}`;
  if (!(manifest.buckets instanceof Uint8Array) || manifest.buckets.length !== BUCKETS * 32)
    return `it does not carry ${BUCKETS} bucket hashes`;
  if (toHex(rootOfBuckets(manifestBuckets(manifest))) !== stateRoot)
    return `its buckets do not make the state root ${stateRoot} of block ${height}`;
  let next = 0;
  for (const chunk of manifest.chunks) {
    if (chunk.first !== next || chunk.last < chunk.first) return 'its chunks do not cover the buckets in order';
    next = chunk.last + 1;
  }
  if (next !== BUCKETS) return 'its chunks do not cover every bucket';
  return undefined;
}

export const encodeManifest = (manifest: SnapshotManifest): Uint8Array => encode(manifest);
export const decodeManifest = (bytes: Uint8Array): SnapshotManifest => decode<SnapshotManifest>(bytes);
export { digestOf as chunkDigest };
