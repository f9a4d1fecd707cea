import { describe, expect, it } from 'vitest';
import { BUCKETS, StateCommitment } from '../../../chain/state/state-root.js';
import { chunkState, decodeManifest, encodeManifest, manifestProblem } from '../../../chain/snapshots/format.js';
import { StateAssembly } from '../../../chain/snapshots/assembly.js';
import { ChunkCheckThread } from '../../../chain/snapshots/chunk-check-thread.js';
import { decode, encode } from '../../../sdk/encoding.js';
import { toHex } from '../../../sdk/bytes.js';

/** A snapshot of a state of `n` entries, as the chain hands the store its capture (state included). */
function snapshotOf(n: number) {
  const state = new Map<string, Uint8Array>();
  const commitment = new StateCommitment();
  for (let i = 0; i < n; i++) {
    const value = Buffer.alloc(40, i % 251);
    state.set(`accounts/a${i}`, value);
    commitment.set(`accounts/a${i}`, value);
  }
  const root = toHex(commitment.root());
  const capture = {
    height: 40,
    blockHash: `0x${'ab'.repeat(32)}`,
    stateRoot: root,
    state,
    buckets: commitment.bucketHashes(),
  };
  return { state, root, ...chunkState(capture, capture.state, capture.buckets) };
}

describe('snapshot format', () => {
  it('a manifest carries the bucket hashes and the chunks, not the state', () => {
    const { root, manifest, chunks } = snapshotOf(60_000);
    expect(Object.keys(manifest).sort()).toEqual(['blockHash', 'buckets', 'chunks', 'format', 'height', 'stateRoot']);
    const bytes = encodeManifest(manifest);
    expect(bytes.length).toBeLessThan(BUCKETS * 32 + chunks.length * 200 + 1024);
    expect(manifestProblem(decodeManifest(bytes), 40, root)).toBeUndefined();
    expect(manifestProblem(decodeManifest(bytes), 40, `0x${'00'.repeat(32)}`)).toMatch(/do not make the state root/);
  });

  const checkers = {
    inline: () => new StateAssembly(decodeManifest(encodeManifest(snapshot.manifest))),
    'a worker thread': () => {
      const thread = new ChunkCheckThread();
      return new StateAssembly(decodeManifest(encodeManifest(snapshot.manifest)), {
        check: (job) => thread.check(job),
        close: () => thread.close(),
      });
    },
  };
  const snapshot = snapshotOf(60_000);

  for (const [where, make] of Object.entries(checkers))
    it(`an assembly checking on ${where} takes each chunk whose buckets hash to the manifest, refuses one that does not holding nothing of it, and ends at the root`, async () => {
      const { state, root, chunks } = snapshot;
      expect(chunks.length).toBeGreaterThan(2);
      const assembly = make();
      try {
        // A chunk with one value changed, one with an entry left out, one with an entry twice, one of the wrong range: each refused.
        const entries = decode<[string, Uint8Array][]>(chunks[0]!);
        const changed = encode(entries.map(([k, v], i) => [k, i === 0 ? Uint8Array.from([...v, 1]) : v]));
        await expect(assembly.add(0, changed)).rejects.toThrow(/bucket \d+ does not hash to the manifest's/);
        await expect(assembly.add(0, encode(entries.slice(1)))).rejects.toThrow(/does not hash to the manifest's/);
        await expect(assembly.add(0, encode([...entries, entries[0]!]))).rejects.toThrow(/twice/);
        await expect(assembly.add(0, chunks[1]!)).rejects.toThrow(/outside 0-/);
        await expect(assembly.add(0, Uint8Array.from([0xff, 0x00]))).rejects.toThrow(/does not decode|not a list/);
        expect(assembly.state.size).toBe(0);
        expect(assembly.root()).toBe(toHex(new StateCommitment().root()));
        await Promise.all(chunks.map((chunk, i) => assembly.add(i, chunk)));
        expect(assembly.complete).toBe(true);
        expect(assembly.state.size).toBe(state.size);
        const differing = [...state].filter(
          ([key, value]) => !Buffer.from(value).equals(assembly.state.get(key) ?? Buffer.alloc(0)),
        );
        expect(differing).toEqual([]);
        expect(assembly.root()).toBe(root);
        await expect(assembly.add(0, chunks[0]!)).rejects.toThrow(/in already/);
        // The tree it built takes later changes as one built key by key does.
        const fresh = new StateCommitment();
        for (const [key, value] of state) fresh.set(key, value);
        for (const c of [assembly.commitment, fresh]) {
          c.set('accounts/a7', Buffer.from('changed'));
          c.set('accounts/a8', undefined);
          c.set('accounts/new', Buffer.from('new'));
        }
        expect(toHex(assembly.commitment.root())).toBe(toHex(fresh.root()));
      } finally {
        await assembly.close();
      }
    });

  it('an assembly given up takes no more chunks, not even one that was being checked', async () => {
    const written: number[] = [];
    const assembly = new StateAssembly(decodeManifest(encodeManifest(snapshot.manifest)), {
      persist: async (entries) => {
        written.push(entries.length);
      },
    });
    await assembly.add(0, snapshot.chunks[0]!);
    const late = assembly.add(1, snapshot.chunks[1]!);
    await assembly.close();
    await expect(late).rejects.toThrow(/the restore is over/);
    await expect(assembly.add(2, snapshot.chunks[2]!)).rejects.toThrow(/the restore is over/);
    await assembly.written();
    expect(written).toEqual([decode<unknown[]>(snapshot.chunks[0]!).length]);
  });
});
