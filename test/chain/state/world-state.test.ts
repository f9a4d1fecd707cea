import { afterEach, describe, expect, it } from 'vitest';
import { utf8 } from '../../../sdk/bytes.js';
import { openStore } from '../../../kernel/storage/open.js';
import type { Store } from '../../../kernel/storage/store.js';
import { HistoryPrunedError, WorldState } from '../../../chain/state/world-state.js';
import { createHash } from 'node:crypto';
import { bucketOf, BUCKETS, StateCommitment } from '../../../chain/state/state-root.js';
import { openChainLayouts } from '../../../chain/layouts.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function worldState(options: { archive: boolean; historyBlocks: number }): Promise<{
  state: WorldState;
  tables: ReturnType<typeof openChainLayouts>;
  commit(height: number, changes: Map<string, Uint8Array | undefined>): Promise<void>;
  count(): Promise<number>;
}> {
  store = await openStore('memory', '/unused');
  const tables = openChainLayouts((name) => store!.claim(name, 't'));
  const state = new WorldState(tables.stateEntries, tables.stateHistory, tables.statePrunable, options);
  const ns = [tables.stateEntries, tables.stateHistory, tables.statePrunable] as const;
  return {
    state,
    tables,
    async commit(height, changes) {
      await state.preview(changes);
      const batch = store!.batch();
      await state.stage(changes, height, batch);
      await state.stagePrune(height, batch);
      await batch.write();
      state.publish(changes, height);
    },
    async count() {
      let n = 0;
      for await (const _ of ns[1].entries()) n++;
      return n;
    },
  };
}

const v = (text: string): Uint8Array => utf8(text);
const text = (bytes: Uint8Array | undefined): string | undefined => (bytes ? Buffer.from(bytes).toString() : undefined);

describe('world state history', () => {
  it('answers values at past heights inside the window, refuses older ones, and prunes superseded history', async () => {
    const { state, commit, count } = await worldState({ archive: false, historyBlocks: 3 });
    await commit(
      0,
      new Map([
        ['accounts/a', v('a0')],
        ['accounts/b', v('b0')],
      ]),
    );
    for (let height = 1; height <= 10; height++) await commit(height, new Map([['accounts/a', v(`a${height}`)]]));
    expect(text(await state.valueAt('accounts/a', 10, 10))).toBe('a10');
    expect(text(await state.valueAt('accounts/a', 8, 10))).toBe('a8');
    expect(text(await state.valueAt('accounts/a', 7, 10))).toBe('a7');
    // b never changed after block 0: its only history entry is kept as the base of the window.
    expect(text(await state.valueAt('accounts/b', 7, 10))).toBe('b0');
    await expect(state.valueAt('accounts/a', 6, 10)).rejects.toBeInstanceOf(HistoryPrunedError);
    // a: entries at heights 6..10 may be needed (6 is the base for queries at 7); b: its one entry.
    expect(await count()).toBeLessThanOrEqual(6 + 1);
  });

  it('keeps everything on an archive', async () => {
    const { state, commit, count } = await worldState({ archive: true, historyBlocks: 3 });
    await commit(0, new Map([['accounts/a', v('a0')]]));
    for (let height = 1; height <= 10; height++) await commit(height, new Map([['accounts/a', v(`a${height}`)]]));
    expect(text(await state.valueAt('accounts/a', 0, 10))).toBe('a0');
    expect(text(await state.valueAt('accounts/a', 4, 10))).toBe('a4');
    expect(await count()).toBe(11);
  });

  it('treats a deleted key as absent from its deletion on', async () => {
    const { state, commit } = await worldState({ archive: true, historyBlocks: 3 });
    await commit(0, new Map([['x/k', v('1')]]));
    await commit(1, new Map([['x/k', undefined]]));
    await commit(2, new Map([['y/other', v('2')]]));
    expect(text(await state.valueAt('x/k', 0, 2))).toBe('1');
    expect(await state.valueAt('x/k', 1, 2)).toBeUndefined();
    expect(state.get('x/k')).toBeUndefined();
  });
});

describe('a world state restored from a snapshot', () => {
  it("answers its height's values from the entries alone, and writes a value's version when a block first supersedes it", async () => {
    const { state, tables, commit, count } = await worldState({ archive: false, historyBlocks: 100 });
    await commit(0, new Map([['genesis/only', v('g')]]));
    const restored = new Map([
      ['x/kept', v('k50')],
      ['x/changed', v('c50')],
      ['x/deleted', v('d50')],
    ]);
    const batch = store!.batch();
    state.stageRestoredEntries(restored, 50, batch);
    state.stageRestoreEnd(restored, batch);
    await batch.write();
    const commitment = new StateCommitment();
    for (const [key, value] of restored) commitment.set(key, value);
    state.restored(restored, 50, commitment);
    state.setBase(50);
    const versionsBefore = await count();
    await commit(
      51,
      new Map([
        ['x/changed', v('c51')],
        ['x/deleted', undefined],
        ['x/new', v('n51')],
      ]),
    );
    await commit(52, new Map([['x/changed', v('c52')]]));
    for (const [at, kept, changed, deleted, created] of [
      [50, 'k50', 'c50', 'd50', undefined],
      [51, 'k50', 'c51', undefined, 'n51'],
      [52, 'k50', 'c52', undefined, 'n51'],
    ] as const) {
      expect(text(await state.valueAt('x/kept', at, 52))).toBe(kept);
      expect(text(await state.valueAt('x/changed', at, 52))).toBe(changed);
      expect(text(await state.valueAt('x/deleted', at, 52))).toBe(deleted);
      expect(text(await state.valueAt('x/new', at, 52))).toBe(created);
    }
    expect(await state.valueAt('genesis/only', 51, 52)).toBeUndefined();
    expect(text(await state.lastKnownValue('x/deleted'))).toBe('d50');
    // Block 51 wrote the two versions it superseded (50) besides its own three; block 52 one.
    expect((await count()) - versionsBefore).toBe(2 + 3 + 1);
    // Reopened, the entries' heights tell the same.
    const reopened = new WorldState(tables.stateEntries, tables.stateHistory, tables.statePrunable, {
      archive: false,
      historyBlocks: 100,
    });
    await reopened.load();
    reopened.setBase(50);
    expect(reopened.root()).toBe(state.root());
    expect(text(await reopened.valueAt('x/kept', 51, 52))).toBe('k50');
    expect(text(await reopened.valueAt('x/changed', 50, 52))).toBe('c50');
    expect(await reopened.valueAt('x/new', 50, 52)).toBeUndefined();
  });
});

/** The documented root, computed from scratch: leaves by bucket in key order, then a 16-ary tree of three levels. */
function rootFromScratch(entries: readonly [string, Uint8Array][]): Buffer {
  const H = (...parts: Uint8Array[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();
  const byBucket = new Map<number, [string, Uint8Array][]>();
  for (const entry of entries) byBucket.set(bucketOf(entry[0]), [...(byBucket.get(bucketOf(entry[0])) ?? []), entry]);
  let level: Buffer[] = Array.from({ length: BUCKETS }, (_, b) => {
    const leaves = (byBucket.get(b) ?? [])
      .sort(([x], [y]) => (x < y ? -1 : 1))
      .map(([key, value]) => H(Buffer.from([0]), Buffer.from(key), Buffer.from([0]), H(value)));
    return leaves.length === 0 ? Buffer.alloc(32) : H(Buffer.from([1]), ...leaves);
  });
  while (level.length > 1)
    level = Array.from({ length: level.length / 16 }, (_, i) =>
      H(Buffer.from([2]), ...level.slice(16 * i, 16 * i + 16)),
    );
  return level[0]!;
}

describe('state commitment', () => {
  it('is the documented root: buckets of sorted leaves under a 16-ary tree, kept up to date as keys change', () => {
    const commitment = new StateCommitment();
    const entries = new Map<string, Uint8Array>(
      Array.from({ length: 3000 }, (_, i) => [`oon/jobs/${i}`, v(`record ${i}`)]),
    );
    for (const [k, value] of entries) commitment.set(k, value);
    expect(commitment.root().equals(rootFromScratch([...entries]))).toBe(true);
    for (let i = 0; i < 3000; i += 7) {
      commitment.set(`oon/jobs/${i}`, i % 2 === 0 ? undefined : v('changed'));
      if (i % 2 === 0) entries.delete(`oon/jobs/${i}`);
      else entries.set(`oon/jobs/${i}`, v('changed'));
    }
    expect(commitment.root().equals(rootFromScratch([...entries]))).toBe(true);
  });

  it('depends on every key and value but not on the order they were written', () => {
    const a = new StateCommitment();
    const b = new StateCommitment();
    const entries: [string, string][] = Array.from({ length: 500 }, (_, i) => [`accounts/${i}`, `value ${i}`]);
    for (const [k, val] of entries) a.set(k, v(val));
    for (const [k, val] of [...entries].reverse()) b.set(k, v(val));
    expect(a.root().equals(b.root())).toBe(true);
    b.set('accounts/7', v('changed'));
    expect(a.root().equals(b.root())).toBe(false);
    b.set('accounts/7', v('value 7'));
    expect(a.root().equals(b.root())).toBe(true);
    b.set('accounts/new', v('x'));
    b.set('accounts/new', undefined);
    expect(a.root().equals(b.root())).toBe(true);
  });
});
