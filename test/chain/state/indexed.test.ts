import { describe, expect, it } from 'vitest';
import { secondSchedule } from '../../../chain/state/indexed.js';
import { decode, encode } from '../../../sdk/encoding.js';

describe('second schedule', () => {
  it('never drains an id before its time: a time inside a second goes in the next whole one', () => {
    const state = new Map<string, Uint8Array>();
    const read = (key: string) => state.get(key);
    const write = (key: string, value: Uint8Array | undefined) =>
      value === undefined ? state.delete(key) : state.set(key, value);
    const { scheduleAt, drainDue } = secondSchedule('test/due');
    scheduleAt(read, write, 10_250, 'inside');
    scheduleAt(read, write, 10_000, 'on the second');
    expect(drainDue(read, write, 9_999)).toEqual([]);
    expect(drainDue(read, write, 10_000)).toEqual(['on the second']);
    expect(drainDue(read, write, 10_999)).toEqual([]);
    expect(drainDue(read, write, 11_000)).toEqual(['inside']);
    // Drained entries leave the state: only the pointer to the next second stays.
    expect([...state.keys()]).toEqual(['test/due-from']);
  });

  it('puts the ids of one second in few entries: 32 to a list, the last one growing until full', () => {
    const state = new Map<string, Uint8Array>();
    const read = (key: string) => state.get(key);
    const write = (key: string, value: Uint8Array | undefined) =>
      value === undefined ? state.delete(key) : state.set(key, value);
    const { scheduleAt, drainDue } = secondSchedule('test/due');
    const ids = Array.from({ length: 70 }, (_, i) => `job-${i}`);
    for (const id of ids) scheduleAt(read, write, 20_500, id);
    scheduleAt(read, write, 19_000, 'earlier');
    // 70 ids in a second: three lists (32, 32, 6) and their count; one more second for the earlier id.
    expect([...state.keys()].filter((key) => key.startsWith('test/due/21/')).sort()).toEqual([
      'test/due/21/0',
      'test/due/21/1',
      'test/due/21/2',
      'test/due/21/count',
    ]);
    expect(drainDue(read, write, 19_500)).toEqual(['earlier']);
    expect(drainDue(read, write, 21_000)).toEqual(ids);
    expect([...state.keys()]).toEqual(['test/due-from']);
  });

  it('reads the one-id entries an earlier version wrote, and starts a list after them', () => {
    const state = new Map<string, Uint8Array>([
      ['test/due/5/0', encode('old-a')],
      ['test/due/5/1', encode('old-b')],
      ['test/due/5/count', encode(2)],
      ['test/due-from', encode(5)],
    ]);
    const read = (key: string) => state.get(key);
    const write = (key: string, value: Uint8Array | undefined) =>
      value === undefined ? state.delete(key) : state.set(key, value);
    const { scheduleAt, drainDue } = secondSchedule('test/due');
    scheduleAt(read, write, 5_000, 'new');
    expect(decode(state.get('test/due/5/2')!)).toEqual(['new']);
    expect(drainDue(read, write, 5_000)).toEqual(['old-a', 'old-b', 'new']);
  });
});
