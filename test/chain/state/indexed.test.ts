import { describe, expect, it } from 'vitest';
import { secondSchedule } from '../../../chain/state/indexed.js';

describe('second schedule', () => {
  it('never drains an id before its time: a time inside a second goes in the next whole one', () => {
    const state = new Map<string, Uint8Array>();
    const read = (key: string) => state.get(key);
    const write = (key: string, value: Uint8Array | undefined) => (value === undefined ? state.delete(key) : state.set(key, value));
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
});
