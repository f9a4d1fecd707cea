import { decodeViews } from '../../sdk/encoding.js';
import { bucketOf, hashOfLeaves, leafHash } from '../state/state-root.js';

/** Each entry's bucket and its leaf hash (32 bytes each, in the chunk's order), for the state tree to take. */
export interface ChunkHashes {
  readonly buckets: Uint16Array;
  readonly leaves: Uint8Array;
}

export type ChunkCheck = { readonly hashes: ChunkHashes } | { readonly problem: string };

/** What checking a chunk needs: its bytes, the run of buckets the manifest gives it and their hashes (32 bytes each). */
export interface ChunkCheckJob {
  readonly index: number;
  readonly bytes: Uint8Array;
  readonly first: number;
  readonly last: number;
  readonly expected: Uint8Array;
}

/**
 * Decodes a snapshot's chunk and checks it holds exactly the entries of its buckets: every entry a
 * [key, value bytes] pair of a bucket in its run, no key twice, and every bucket of the run hashing to
 * the manifest's. Pure (it runs on a worker thread as well as inline).
 */
export function checkChunk({ index, bytes, first, last, expected }: ChunkCheckJob): ChunkCheck {
  let entries: unknown;
  try {
    // Its values are only hashed here: views of the chunk, not copies.
    entries = decodeViews<unknown>(bytes);
  } catch (error) {
    return { problem: `chunk ${index} does not decode: ${(error as Error).message}` };
  }
  if (!Array.isArray(entries)) return { problem: `chunk ${index} is not a list of entries` };
  const buckets = new Uint16Array(entries.length);
  const leaves = new Uint8Array(entries.length * 32);
  const byBucket = new Map<number, [string, Buffer][]>();
  const seen = new Set<string>();
  for (const [i, entry] of (entries as unknown[]).entries()) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !(entry[1] instanceof Uint8Array))
      return { problem: `chunk ${index} holds an entry that is not [key, value bytes]` };
    const [key, value] = entry as [string, Uint8Array];
    if (seen.has(key)) return { problem: `chunk ${index} holds key "${key}" twice` };
    seen.add(key);
    const bucket = bucketOf(key);
    if (bucket < first || bucket > last)
      return { problem: `chunk ${index} holds key "${key}" of bucket ${bucket}, outside ${first}-${last}` };
    const leaf = leafHash(key, value);
    buckets[i] = bucket;
    leaves.set(leaf, i * 32);
    const list = byBucket.get(bucket);
    if (list) list.push([key, leaf]);
    else byBucket.set(bucket, [[key, leaf]]);
  }
  for (let bucket = first; bucket <= last; bucket++) {
    const sorted = (byBucket.get(bucket) ?? []).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const hash = hashOfLeaves(sorted.map(([, leaf]) => leaf));
    const offset = (bucket - first) * 32;
    if (!hash.equals(expected.subarray(offset, offset + 32)))
      return { problem: `chunk ${index}: bucket ${bucket} does not hash to the manifest's (a wrong or missing entry)` };
  }
  return { hashes: { buckets, leaves } };
}
