import { toHex, type Hex } from '../../sdk/bytes.js';
import { u64Key } from '../../kernel/storage/keys.js';
import type { WriteBatch } from '../../kernel/storage/namespace.js';
import { stateVersionKey, type ChainTables, type StateVersion, type SupersededVersion } from '../layouts.js';
import { StateCommitment } from './state-root.js';
import type { Pacer } from '../pacer.js';

/** State changes of a block: key -> new value, or undefined for a deletion. */
export type StateChanges = ReadonlyMap<string, Uint8Array | undefined>;

export interface WorldStateOptions {
  /** Keep every historical value (archive), or only `historyBlocks` blocks back. */
  readonly archive: boolean;
  readonly historyBlocks: number;
}

const EMPTY = new Uint8Array(0);

/** Keys a rewind restores: each one's value (undefined: deleted) and the height it took it at; undefined: no version then. */
export type StateRewind = ReadonlyMap<
  string,
  { readonly value: Uint8Array | undefined; readonly height: number } | undefined
>;

export class HistoryPrunedError extends Error {
  override name = 'HistoryPrunedError';
}

/**
 * The world state: every consensus key and value, held in memory (a devnet's state fits in RAM) and
 * persisted in the block's batch, in the `state.entries`, `state.history` and `state.prunable`
 * namespaces (layouts in chain/layouts.ts). A prunable entry (key, old height) is superseded at its
 * height, so it can go once the history window has passed it.
 */
export class WorldState {
  private readonly values = new Map<string, Uint8Array>();
  private readonly lastChange = new Map<string, number>();
  private commitment = new StateCommitment();
  private archive: boolean;
  /** The oldest height this state has any history of: a state-synced node's snapshot height, else 0. */
  private base = 0;

  constructor(
    private readonly entries: ChainTables['stateEntries'],
    private readonly history: ChainTables['stateHistory'],
    private readonly prunable: ChainTables['statePrunable'],
    readonly options: WorldStateOptions,
  ) {
    this.archive = options.archive;
  }

  /** From now on every historical value is kept (the archive capability). */
  keepAllHistory(): void {
    this.archive = true;
  }

  async load(): Promise<void> {
    for await (const [name, { height, value }] of this.entries.entries()) {
      this.values.set(name, value);
      this.lastChange.set(name, height);
      this.commitment.set(name, value);
    }
  }

  get size(): number {
    return this.values.size;
  }

  get(key: string): Uint8Array | undefined {
    return this.values.get(key);
  }

  /** Every committed key under `prefix` with its value, in no particular order (audits, explorers). */
  *entriesUnder(prefix: string): Iterable<[string, Uint8Array]> {
    for (const entry of this.values) if (entry[0].startsWith(prefix)) yield entry;
  }

  root(): Hex {
    return toHex(this.commitment.root());
  }

  /**
   * The root the state would have with a block's changes. Readers keep seeing the committed values
   * until `publish`; `undo` restores the commitment if the block is not committed.
   */
  async preview(changes: StateChanges, pacer?: Pacer): Promise<{ root: Hex; undo: () => void }> {
    const previous = new Map<string, Uint8Array | undefined>();
    for (const [key, value] of changes) {
      previous.set(key, this.values.get(key));
      this.commitment.set(key, value);
      const pause = pacer?.step();
      if (pause) await pause;
    }
    return {
      root: toHex(pacer ? await this.commitment.rootPaced(pacer) : this.commitment.root()),
      undo: () => {
        for (const [key, value] of previous) this.commitment.set(key, value);
      },
    };
  }

  /** Makes a committed block's changes visible to readers. */
  publish(changes: StateChanges, height: number): void {
    for (const [key, value] of changes) {
      if (value === undefined) this.values.delete(key);
      else this.values.set(key, value);
      this.lastChange.set(key, height);
    }
  }

  /** Writes a block's changes, their history and the pruning schedule into the block's batch. */
  async stage(changes: StateChanges, height: number, batch: WriteBatch, pacer?: Pacer): Promise<void> {
    for (const [key, value] of changes) {
      if (value === undefined) this.entries.del(batch, key);
      else this.entries.put(batch, key, { height, value });
      this.history.put(batch, { key, height }, value ?? EMPTY);
      const before = this.lastChange.get(key);
      // A value restored from a snapshot has no version in history until it is first superseded.
      if (this.base > 0 && before === this.base && before !== height)
        this.history.put(batch, { key, height: before }, this.values.get(key) ?? EMPTY);
      if (before !== undefined && before !== height && !this.archive)
        this.prunable.put(batch, { height, key, superseded: before }, EMPTY);
      const pause = pacer?.step();
      if (pause) await pause;
    }
  }

  /**
   * Writes into `batch` what takes the state back to after block `height` (dev mode's revert): each
   * key changed since takes its newest version at or before `height` from history (absent when it has
   * none), later versions and their pruning schedule go. Returns those keys' values and heights for
   * `rewound` once the batch is written. The caller checks `height` is inside the history window.
   */
  async stageRewind(height: number, batch: WriteBatch): Promise<StateRewind> {
    const restored = new Map<string, { value: Uint8Array | undefined; height: number } | undefined>();
    for (const [key, changed] of this.lastChange) {
      if (changed <= height) continue;
      let kept: { value: Uint8Array | undefined; height: number } | undefined;
      for await (const [version, value] of this.history.entries({ prefix: stateVersionKey.versionsOf(key) })) {
        if (version.height > height) this.history.del(batch, version);
        else kept = { value: value.length > 0 ? value : undefined, height: version.height };
      }
      if (kept?.value) this.entries.put(batch, key, { value: kept.value, height: kept.height });
      else this.entries.del(batch, key);
      restored.set(key, kept);
    }
    // Entries keyed by the height that superseded a version: those of the undone blocks.
    for await (const [entry] of this.prunable.entries({ gte: u64Key(height + 1) })) this.prunable.del(batch, entry);
    return restored;
  }

  /** Makes a written rewind visible: values, heights and the root tree as they were after that block. */
  rewound(restored: StateRewind): void {
    for (const [key, kept] of restored) {
      this.commitment.set(key, kept?.value);
      if (kept?.value) this.values.set(key, kept.value);
      else this.values.delete(key);
      // A key deleted by then keeps the height of its deletion: its next version supersedes that one.
      if (kept) this.lastChange.set(key, kept.height);
      else this.lastChange.delete(key);
    }
  }

  /** Deletes history that no query inside the window can need any more (nothing on an archive). */
  async stagePrune(head: number, batch: WriteBatch): Promise<void> {
    if (this.archive) return;
    const cutoff = head - this.options.historyBlocks;
    if (cutoff <= 0) return;
    // Superseded at or before the cutoff: the keys begin with that height.
    for await (const [entry] of this.prunable.entries({ lt: u64Key(cutoff + 1), limit: 10_000 })) {
      this.history.del(batch, { key: entry.key, height: entry.superseded });
      this.prunable.del(batch, entry);
    }
  }

  /** The oldest height whose state this node still answers for. */
  oldestAvailable(head: number): number {
    return this.archive ? this.base : Math.max(this.base, head - this.options.historyBlocks);
  }

  /** History starts at `height` (a state restored from a snapshot of that block). */
  setBase(height: number): void {
    this.base = height;
  }

  /** The committed state and its bucket hashes as they stand: what a snapshot of the head is made of. */
  capture(): { state: Map<string, Uint8Array>; buckets: Buffer[] } {
    return { state: new Map(this.values), buckets: this.commitment.bucketHashes() };
  }

  /**
   * Writes into `batch` entries of a state being restored at `height` (a snapshot's checked chunk).
   * Their history versions are written when a block first supersedes them (`stage`): until then the
   * entry is the version. Not the chain's state until `stageRestoreEnd`'s batch lands: until then
   * readers keep the values in memory, and a node that stops wipes them (`stageWipe`).
   */
  stageRestoredEntries(entries: Iterable<readonly [string, Uint8Array]>, height: number, batch: WriteBatch): void {
    for (const [key, value] of entries) this.entries.put(batch, key, { height, value });
  }

  /**
   * Completes a restored state in `batch`: the state held before (the genesis state) goes — its keys
   * the snapshot lacks, and its history, which a query after the snapshot's height must not find.
   */
  stageRestoreEnd(state: ReadonlyMap<string, Uint8Array>, batch: WriteBatch): void {
    for (const [key, height] of this.lastChange) {
      this.history.del(batch, { key, height });
      if (!state.has(key)) this.entries.del(batch, key);
    }
  }

  /** Deletes every stored entry, version and pruning mark (a restore that did not finish, before the genesis state is written again). */
  async stageWipe(batch: WriteBatch): Promise<void> {
    for await (const [key] of this.entries.entries()) this.entries.del(batch, key);
    for await (const [version] of this.history.entries()) this.history.del(batch, version);
    for await (const [entry] of this.prunable.entries()) this.prunable.del(batch, entry);
  }

  /** Makes the restored state visible, with the commitment the chain built of it (and checked against the block's root). */
  restored(state: ReadonlyMap<string, Uint8Array>, height: number, commitment: StateCommitment): void {
    this.values.clear();
    this.lastChange.clear();
    for (const [key, value] of state) {
      this.values.set(key, value);
      this.lastChange.set(key, height);
    }
    this.commitment = commitment;
    this.base = height;
  }

  /**
   * The current value of `key`, or else its newest value before it was deleted, as far as this node
   * keeps history (an archive: always; others: within the window).
   */
  async lastKnownValue(key: string): Promise<Uint8Array | undefined> {
    const current = this.values.get(key);
    if (current) return current;
    for await (const [, value] of this.history.entries({ prefix: stateVersionKey.versionsOf(key), reverse: true }))
      if (value.length > 0) return value;
    return undefined;
  }

  /** The value of `key` after block `height`. Throws HistoryPrunedError outside the window. */
  async valueAt(key: string, height: number, head: number): Promise<Uint8Array | undefined> {
    if (height >= head) return this.values.get(key);
    if (height < this.oldestAvailable(head))
      throw new HistoryPrunedError(`state at block ${height} is older than this node's history window`);
    for await (const [, value] of this.history.entries({
      prefix: stateVersionKey.versionsOf(key),
      lt: stateVersionKey.encode({ key, height: height + 1 }),
      reverse: true,
      limit: 1,
    })) {
      return value.length === 0 ? undefined : value;
    }
    // No version by then: unchanged since it was restored from a snapshot (or absent).
    const changed = this.lastChange.get(key);
    return changed !== undefined && changed <= height ? this.values.get(key) : undefined;
  }
}

/** A write `svc-node prune` applies: deleting a history version, or scheduling one for pruning. */
export type HistoryWrite = { readonly drop: StateVersion } | { readonly schedule: SupersededVersion };

/**
 * What turning an archive's history into a windowed one takes (`svc-node prune`): every version a
 * query from `cutoff` on can't need goes, and the pruning schedule an archive never wrote is written
 * for the versions that stay. History keys are `name ‖ 0x00 ‖ u64 height`, so a key's versions come
 * one after another.
 */
export async function* windowArchivedHistory(
  history: ChainTables['stateHistory'],
  cutoff: number,
): AsyncGenerator<HistoryWrite> {
  let name: string | undefined;
  let versions: number[] = [];
  function* settle(): Generator<HistoryWrite> {
    if (name === undefined) return;
    const key = name;
    // Queries from the cutoff on need the newest version at or before it, and every later one.
    let keepFrom = 0;
    for (let i = 0; i < versions.length; i++) if (versions[i]! <= cutoff) keepFrom = i;
    for (let i = 0; i < keepFrom; i++) yield { drop: { key, height: versions[i]! } };
    // Each kept version goes once the window passes the version that supersedes it.
    for (let i = keepFrom; i + 1 < versions.length; i++)
      yield { schedule: { height: versions[i + 1]!, key, superseded: versions[i]! } };
  }
  for await (const [version] of history.entries()) {
    if (version.key !== name) {
      yield* settle();
      name = version.key;
      versions = [];
    }
    versions.push(version.height);
  }
  yield* settle();
}
