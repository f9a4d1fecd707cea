import { decode } from '../../sdk/encoding.js';
import { toHex } from '../../sdk/bytes.js';
import { bucketOf, StateCommitment } from '../state/state-root.js';
import { manifestBuckets, SnapshotError, type SnapshotManifest } from './format.js';

/**
 * A snapshot's state as its chunks arrive, checked one chunk at a time against the manifest's bucket
 * hashes, and the state tree built as it goes: each entry is hashed once, for the chunk's check and
 * for the root the chain then checks against the block's (the work a node cannot do with less).
 */
export class StateAssembly {
  readonly state = new Map<string, Uint8Array>();
  readonly commitment = new StateCommitment();
  private readonly expected: Buffer[];
  private readonly added = new Set<number>();

  constructor(readonly manifest: SnapshotManifest) {
    this.expected = manifestBuckets(manifest);
  }

  /** Whether every chunk the manifest names is in. */
  get complete(): boolean {
    return this.added.size === this.manifest.chunks.length;
  }

  /**
   * Takes chunk `index` once every bucket in its range hashes to the manifest's, returning how many
   * entries it held; otherwise throws SnapshotError naming what is wrong, and holds nothing of it.
   */
  add(index: number, bytes: Uint8Array): number {
    const info = this.manifest.chunks[index];
    if (!info) throw new SnapshotError(`chunk ${index}: the manifest has ${this.manifest.chunks.length} chunks`);
    if (this.added.has(index)) throw new SnapshotError(`chunk ${index} is in already`);
    let entries: [string, Uint8Array][];
    try {
      entries = decode<[string, Uint8Array][]>(bytes);
    } catch (error) {
      throw new SnapshotError(`chunk ${index} does not decode: ${(error as Error).message}`);
    }
    if (!Array.isArray(entries)) throw new SnapshotError(`chunk ${index} is not a list of entries`);
    const buckets: number[] = [];
    for (const entry of entries) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !(entry[1] instanceof Uint8Array))
        throw new SnapshotError(`chunk ${index} holds an entry that is not [key, value bytes]`);
      const bucket = bucketOf(entry[0]);
      if (bucket < info.first || bucket > info.last)
        throw new SnapshotError(
          `chunk ${index} holds key "${entry[0]}" of bucket ${bucket}, outside ${info.first}-${info.last}`,
        );
      buckets.push(bucket);
    }
    // Its buckets hold nothing else (chunks cover disjoint runs of buckets, each taken once).
    for (const [i, [key, value]] of entries.entries()) this.commitment.set(key, value, buckets[i]);
    for (let bucket = info.first; bucket <= info.last; bucket++) {
      if (this.commitment.bucketHash(bucket).equals(this.expected[bucket]!)) continue;
      for (const [key] of entries) this.commitment.set(key, undefined);
      throw new SnapshotError(
        `chunk ${index}: bucket ${bucket} does not hash to the manifest's (a wrong or missing entry)`,
      );
    }
    for (const [key, value] of entries) this.state.set(key, value);
    this.added.add(index);
    return entries.length;
  }

  /** The root of the state assembled so far. */
  root(): string {
    return toHex(this.commitment.root());
  }
}
