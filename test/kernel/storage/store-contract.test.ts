import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { utf8 } from '../../../sdk/bytes.js';
import { u64Key } from '../../../kernel/storage/keys.js';
import { openStore, type StorageKind } from '../../../kernel/storage/open.js';
import type { Store } from '../../../kernel/storage/store.js';
import { tempDir } from '../../helpers/test-node.js';

const text = (bytes: Uint8Array | undefined): string | undefined => (bytes ? Buffer.from(bytes).toString() : undefined);

async function collect(iterable: AsyncIterable<[Uint8Array, Uint8Array]>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const [k, v] of iterable) out.push([Buffer.from(k).toString('hex'), Buffer.from(v).toString()]);
  return out;
}

/** One contract, run against every backend (as hono runs one router suite over every router). */
describe.each<StorageKind>(['rocksdb', 'memory'])('storage contract: %s', (kind) => {
  let store: Store;
  let dir: string;

  async function open(): Promise<Store> {
    dir ??= tempDir('svc-store-');
    store = await openStore(kind, dir);
    return store;
  }

  afterEach(async () => {
    await store?.close().catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined as unknown as string;
  });

  it('gets what was put and undefined for a missing key', async () => {
    const s = await open();
    const ns = s.claim('a', 'test');
    await ns.put(utf8('k'), utf8('v'));
    expect(text(await ns.get(utf8('k')))).toBe('v');
    expect(await ns.get(utf8('missing'))).toBeUndefined();
    expect((await ns.getMany([utf8('k'), utf8('missing')])).map(text)).toEqual(['v', undefined]);
    await ns.del(utf8('k'));
    expect(await ns.get(utf8('k'))).toBeUndefined();
  });

  it('isolates namespaces by prefix, even when one name starts with another', async () => {
    const s = await open();
    const a = s.claim('a', 'one');
    const ab = s.claim('ab', 'two');
    const aDotB = s.claim('a.b', 'three');
    await a.put(utf8('x'), utf8('from a'));
    await ab.put(utf8('x'), utf8('from ab'));
    await aDotB.put(utf8('x'), utf8('from a.b'));
    expect(await collect(a.entries())).toEqual([[Buffer.from('x').toString('hex'), 'from a']]);
    expect(await collect(ab.entries())).toEqual([[Buffer.from('x').toString('hex'), 'from ab']]);
    expect(text(await aDotB.get(utf8('x')))).toBe('from a.b');
  });

  it('refuses a namespace claimed twice, naming both plugins', async () => {
    const s = await open();
    s.claim('shared', 'first');
    expect(() => s.claim('shared', 'second')).toThrow(
      /namespace "shared" of plugin "second" is already claimed by plugin "first"/,
    );
    expect(() => s.claim('Bad Name', 'x')).toThrow(/must match/);
  });

  it('iterates in key order, forwards, backwards, within ranges and prefixes, with limits', async () => {
    const s = await open();
    const ns = s.claim('ordered', 'test');
    for (const n of [5, 1, 300, 2, 70000]) await ns.put(u64Key(n), utf8(String(n)));
    const values = async (range = {}): Promise<string[]> => (await collect(ns.entries(range))).map(([, v]) => v);
    expect(await values()).toEqual(['1', '2', '5', '300', '70000']);
    expect(await values({ reverse: true })).toEqual(['70000', '300', '5', '2', '1']);
    expect(await values({ gte: u64Key(2), lt: u64Key(300) })).toEqual(['2', '5']);
    expect(await values({ reverse: true, limit: 2 })).toEqual(['70000', '300']);
    expect(await values({ prefix: u64Key(5).subarray(0, 7) })).toEqual(['1', '2', '5']);
  });

  it('applies a batch across namespaces atomically', async () => {
    const s = await open();
    const a = s.claim('one', 'test');
    const b = s.claim('two', 'test');
    await a.put(utf8('old'), utf8('1'));
    const batch = s.batch();
    batch.put(a, utf8('k'), utf8('a')).put(b, utf8('k'), utf8('b')).del(a, utf8('old'));
    expect(batch.size).toBe(3);
    await batch.write({ sync: true });
    expect(text(await a.get(utf8('k')))).toBe('a');
    expect(text(await b.get(utf8('k')))).toBe('b');
    expect(await a.get(utf8('old'))).toBeUndefined();
  });

  it('applies batches in the order they were given, a large one and the small ones after it', async () => {
    const s = await open();
    const ns = s.claim('order', 'test');
    // Over a megabyte (RocksDB writes it off the main thread), then small ones given before it is done.
    const large = s.batch();
    for (let i = 0; i < 2000; i++) large.put(ns, utf8(`k${i}`), new Uint8Array(600).fill(1));
    const small = s.batch().put(ns, utf8('k7'), utf8('after')).del(ns, utf8('k8'));
    const last = s.batch().put(ns, utf8('k8'), utf8('last'));
    await Promise.all([large.write(), small.write(), last.write()]);
    expect(text(await ns.get(utf8('k7')))).toBe('after');
    expect(text(await ns.get(utf8('k8')))).toBe('last');
    expect((await ns.get(utf8('k1999')))?.length).toBe(600);
  });

  it('a batch that fails writes nothing', async () => {
    const s = await open();
    const a = s.claim('one', 'test');
    const batch = s.batch();
    batch.put(a, utf8('good'), utf8('1'));
    // An operation the backend rejects makes the whole batch fail.
    (batch as unknown as { operations: unknown[] }).operations.push({ type: 'put', key: undefined, value: utf8('x') });
    await expect(batch.write()).rejects.toThrow();
    expect(await a.get(utf8('good'))).toBeUndefined();
  });

  it.runIf(kind === 'rocksdb')('keeps data across close and reopen', async () => {
    const s = await open();
    await s.claim('durable', 'test').put(utf8('k'), utf8('kept'));
    await s.close();
    const again = await openStore(kind, dir);
    store = again;
    expect(text(await again.claim('durable', 'test').get(utf8('k')))).toBe('kept');
  });
});
