import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '../../../sdk/bytes.js';
import { cbor, hash32, json, u64, utf8Text } from '../../../kernel/storage/codec.js';
import { defineLayout, Table } from '../../../kernel/storage/layout.js';
import { openStore } from '../../../kernel/storage/open.js';
import type { Store } from '../../../kernel/storage/store.js';
import { CHAIN_LAYOUTS, stateVersionKey, supersededKey } from '../../../chain/layouts.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('a storage layout', () => {
  it('describes itself from its codecs, as svc-node plugins prints it', () => {
    expect(defineLayout('x.y', u64('height'), cbor('block')).description).toBe('u64 height -> CBOR block');
    expect(defineLayout('x.y', hash32('tx hash'), json('receipt'), 'custom').description).toBe('custom');
    expect(CHAIN_LAYOUTS.stateHistory.description).toBe(
      'utf8 state key ‖ 0x00 ‖ u64 height -> value at that height (empty = absent)',
    );
  });

  it('writes the bytes the layout names (the on-disk format does not change with the code)', () => {
    expect(toHex(u64('n').encode(258))).toBe('0x0000000000000102');
    expect(toHex(stateVersionKey.encode({ key: 'a/b', height: 2 }))).toBe('0x612f62000000000000000002');
    expect(toHex(supersededKey.encode({ height: 3, key: 'k', superseded: 1 }))).toBe(
      '0x00000000000000036b000000000000000001',
    );
    expect(stateVersionKey.decode(stateVersionKey.encode({ key: 'accounts/0xabc', height: 7 }))).toEqual({
      key: 'accounts/0xabc',
      height: 7,
    });
    expect(supersededKey.decode(supersededKey.encode({ height: 9, key: 'x', superseded: 4 }))).toEqual({
      height: 9,
      key: 'x',
      superseded: 4,
    });
    expect(hash32('h').decode(hash32('h').encode(`0x${'ab'.repeat(32)}`))).toBe(`0x${'ab'.repeat(32)}`);
  });

  it('reads and writes typed entries through a table, in key order, with batches and single writes', async () => {
    store = await openStore('memory', '/unused');
    const layout = defineLayout('t.heights', u64('height'), utf8Text('label'));
    const table = new Table(store.claim(layout.name, 't'), layout);
    const batch = store.batch();
    table.put(batch, 300, 'c');
    table.put(batch, 2, 'a');
    expect(await table.get(2)).toBeUndefined();
    await batch.write();
    await table.putNow(20, 'b');
    expect(await table.get(2)).toBe('a');
    const all: [number, string][] = [];
    for await (const entry of table.entries()) all.push(entry);
    expect(all).toEqual([
      [2, 'a'],
      [20, 'b'],
      [300, 'c'],
    ]);
    await table.delNow(20);
    const del = store.batch();
    table.del(del, 300);
    await del.write();
    expect(await table.get(20)).toBeUndefined();
    expect(await table.get(300)).toBeUndefined();
  });
});
