import { decodeViews } from '../../sdk/encoding.js';
import { toHex } from '../../sdk/bytes.js';
import { StateCommitment } from '../state/state-root.js';
import { checkChunk, type ChunkCheck, type ChunkCheckJob } from './chunk-check.js';
import { manifestBuckets, SnapshotError, type SnapshotManifest } from './format.js';

/** Where a checked chunk's entries go as it is taken (the chain writes them while the next chunks are hashed). */
export type PersistEntries = (entries: readonly (readonly [string, Uint8Array])[]) => Promise<void>;

export interface AssemblyOptions {
  readonly persist?: PersistEntries;
  /** Where chunks are decoded and hashed (a worker thread); inline by default. */
  readonly check?: (job: ChunkCheckJob) => Promise<ChunkCheck>;
  /** Frees what `check` holds (its thread), when the assembly is done with. */
  readonly close?: () => Promise<void>;
}

/**
 * A snapshot's state as its chunks arrive, checked one chunk at a time against the manifest's bucket
 * hashes, and the state tree built as it goes: each entry is hashed once, for the chunk's check and
 * for the root the chain then checks against the block's (the work a node cannot do with less). Each
 * chunk taken is handed to `persist` at once, so the writes overlap the rest of the fetching.
 */
export class StateAssembly {
  readonly state = new Map<string, Uint8Array>();
  readonly commitment = new StateCommitment();
  private readonly expected: Buffer[];
  private readonly added = new Set<number>();
  private readonly taking = new Set<number>();
  private writes: Promise<unknown> = Promise.resolve();
  private writeFailure: Error | undefined;
  private closed = false;

  constructor(
    readonly manifest: SnapshotManifest,
    private readonly options: AssemblyOptions = {},
  ) {
    this.expected = manifestBuckets(manifest);
  }

  /** Whether every chunk the manifest names is in. */
  get complete(): boolean {
    return this.added.size === this.manifest.chunks.length;
  }

  /** Whether the restore is over (closed): no chunk is taken any more. */
  get over(): boolean {
    return this.closed;
  }

  /** Resolves once every taken chunk's entries are written; rejects with the first write that failed. */
  async written(): Promise<void> {
    await this.writes;
    if (this.writeFailure) throw this.writeFailure;
  }

  /**
   * Takes chunk `index` once every bucket in its range hashes to the manifest's, returning how many
   * entries it held; otherwise rejects with a SnapshotError naming what is wrong, and holds nothing of it.
   */
  async add(index: number, bytes: Uint8Array): Promise<number> {
    const info = this.manifest.chunks[index];
    if (!info) throw new SnapshotError(`chunk ${index}: the manifest has ${this.manifest.chunks.length} chunks`);
    if (this.closed) throw new SnapshotError(`chunk ${index}: the restore is over`);
    if (this.added.has(index) || this.taking.has(index)) throw new SnapshotError(`chunk ${index} is in already`);
    this.taking.add(index);
    try {
      const hashes = this.expected.slice(info.first, info.last + 1);
      const job = { index, bytes, first: info.first, last: info.last, expected: Buffer.concat(hashes) };
      const checked = await (this.options.check ?? ((j: ChunkCheckJob) => Promise.resolve(checkChunk(j))))(job);
      if ('problem' in checked) throw new SnapshotError(checked.problem);
      // Given up while it was checked: nothing more is written after `close`.
      if (this.closed) throw new SnapshotError(`chunk ${index}: the restore is over`);
      // Checked on the way: a list of [key, value] pairs of its buckets, each key once. Its values are
      // views of one copy of the chunk the assembly owns (the state keeps them): one allocation, not one each.
      const entries = decodeViews<[string, Uint8Array][]>(bytes.slice());
      this.commitment.adopt(entries, checked.hashes, info.first, hashes);
      for (const [key, value] of entries) this.state.set(key, value);
      this.added.add(index);
      if (this.options.persist) {
        const write = this.options.persist(entries).catch((error: unknown) => {
          this.writeFailure ??= error as Error;
        });
        this.writes = Promise.all([this.writes, write]);
      }
      return entries.length;
    } finally {
      this.taking.delete(index);
    }
  }

  /** Done taking chunks (restored or given up): frees the checking thread. */
  async close(): Promise<void> {
    this.closed = true;
    await this.options.close?.();
  }

  /** The root of the state assembled so far. */
  root(): string {
    return toHex(this.commitment.root());
  }
}
