import { describe, expect, it } from 'vitest';
import { BUCKETS, StateCommitment } from '../../../chain/state/state-root.js';
import { chunkState, decodeManifest, encodeManifest, manifestProblem } from '../../../chain/snapshots/format.js';
import { StateAssembly } from '../../../chain/snapshots/assembly.js';
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

  it('an assembly takes each chunk whose buckets hash to the manifest, refuses one that does not holding nothing of it, and ends at the root', () => {
    const { state, root, manifest, chunks } = snapshotOf(60_000);
    expect(chunks.length).toBeGreaterThan(2);
    const assembly = new StateAssembly(decodeManifest(encodeManifest(manifest)));
    // A chunk with one value changed, one with an entry left out, one of the wrong range: each refused.
    const entries = decode<[string, Uint8Array][]>(chunks[0]!);
    const changed = encode(entries.map(([k, v], i) => [k, i === 0 ? Uint8Array.from([...v, 1]) : v]));
    expect(() => assembly.add(0, changed)).toThrow(/bucket \d+ does not hash to the manifest's/);
    expect(() => assembly.add(0, encode(entries.slice(1)))).toThrow(/does not hash to the manifest's/);
    expect(() => assembly.add(0, chunks[1]!)).toThrow(/outside 0-/);
    expect(() => assembly.add(0, Uint8Array.from([0xff, 0x00]))).toThrow(/does not decode|not a list/);
    expect(assembly.state.size).toBe(0);
    expect(assembly.root()).toBe(toHex(new StateCommitment().root()));
    for (const [i, chunk] of chunks.entries()) assembly.add(i, chunk);
    expect(assembly.complete).toBe(true);
    expect(assembly.state.size).toBe(state.size);
    const differing = [...state].filter(
      ([key, value]) => !Buffer.from(value).equals(assembly.state.get(key) ?? Buffer.alloc(0)),
    );
    expect(differing).toEqual([]);
    expect(assembly.root()).toBe(root);
    expect(() => assembly.add(0, chunks[0]!)).toThrow(/in already/);
  });
});
