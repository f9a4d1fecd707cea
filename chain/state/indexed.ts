import { decode, encode } from '../../sdk/encoding.js';

/**
 * Shapes of consensus state that chain rules share: numbered indexes (append, page newest first,
 * drain), a schedule keyed by the second of block time, and a writer that skips unchanged values.
 * Each costs a few small keys per operation, whatever the size of what it holds, so no block ever
 * rewrites a long list.
 */

export type ReadState = (key: string) => Uint8Array | undefined;
export type WriteState = (key: string, value: Uint8Array | undefined) => void;

/** A writer that leaves a key alone when the value is unchanged (an unchanged write would still add to the state's history). */
export function unchangedSkipped(read: ReadState, write: WriteState): WriteState {
  return (key, value) => {
    const current = read(key);
    if (current === undefined ? value === undefined : value !== undefined && Buffer.compare(current, value) === 0)
      return;
    write(key, value);
  };
}

export function indexCount(read: ReadState, index: string): number {
  const raw = read(`${index}/count`);
  return raw ? decode<number>(raw) : 0;
}

/** Appends to a numbered index: two small writes, whatever its length. */
export function appendIndexed(read: ReadState, write: WriteState, index: string, id: string): void {
  const count = indexCount(read, index);
  write(`${index}/${count}`, encode(id));
  write(`${index}/count`, encode(count + 1));
}

/** Up to `limit` entries of a numbered index, newest first, from position `before` (exclusive) down. */
export function readIndexed(
  read: ReadState,
  index: string,
  limit: number,
  before = indexCount(read, index),
): { ids: string[]; next?: number } {
  const ids: string[] = [];
  let at = Math.min(before, indexCount(read, index)) - 1;
  for (; at >= 0 && ids.length < limit; at--) ids.push(decode<string>(read(`${index}/${at}`)!));
  return at >= 0 ? { ids, next: at + 1 } : { ids };
}

/** Takes every entry out of a numbered index, oldest first. */
export function drainIndexed(read: ReadState, write: WriteState, index: string): string[] {
  const count = indexCount(read, index);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(decode<string>(read(`${index}/${i}`)!));
    write(`${index}/${i}`, undefined);
  }
  if (count > 0) write(`${index}/count`, undefined);
  return ids;
}

/** Most ids one schedule entry holds (about 2 KiB of job ids): an entry grows until then, so a block's many deadlines in one second cost one key. */
const IDS_PER_ENTRY = 32;

/**
 * A schedule of ids by the second of block time they are due in: `<prefix>/<second>/<n>` (numbered
 * per second, with `count`), each a CBOR list of up to 32 ids, and `<prefix>-from`, the first second
 * not yet looked at. An id joins the last entry of its second while that has room, so the deadlines a
 * block sets in one second change one key, not two per id. A block drains every second up to its own
 * time, each second's entries read once. A time goes in the whole second at or after it, so an id is
 * never drained before its time (which would only schedule it again).
 */
export function secondSchedule(prefix: string): {
  scheduleAt(read: ReadState, write: WriteState, time: number, id: string): void;
  drainDue(read: ReadState, write: WriteState, time: number): string[];
  /** The time (unix ms) of the first second with ids due, looking `horizonSeconds` ahead of the last drained; undefined for none. */
  nextDue(read: ReadState, horizonSeconds?: number): number | undefined;
} {
  const fromKey = `${prefix}-from`;
  const index = (second: number): string => `${prefix}/${second}`;
  return {
    /** Twice is harmless: a visit is a visit. */
    scheduleAt(read, write, time, id) {
      const second = Math.ceil(time / 1000);
      const entries = index(second);
      const count = indexCount(read, entries);
      const last = count > 0 ? decode<string[] | string>(read(`${entries}/${count - 1}`)!) : undefined;
      if (Array.isArray(last) && last.length < IDS_PER_ENTRY) write(`${entries}/${count - 1}`, encode([...last, id]));
      else {
        write(`${entries}/${count}`, encode([id]));
        write(`${entries}/count`, encode(count + 1));
      }
      const from = read(fromKey);
      if (!from || second < decode<number>(from)) write(fromKey, encode(second));
    },
    drainDue(read, write, time) {
      const until = Math.floor(time / 1000);
      const fromRaw = read(fromKey);
      if (!fromRaw) return [];
      let second = decode<number>(fromRaw);
      const due: string[] = [];
      for (; second <= until; second++) {
        const entries = index(second);
        const count = indexCount(read, entries);
        for (let i = 0; i < count; i++) {
          // An entry an earlier version wrote holds one id, not a list.
          const ids = decode<string[] | string>(read(`${entries}/${i}`)!);
          if (typeof ids === 'string') due.push(ids);
          else due.push(...ids);
          write(`${entries}/${i}`, undefined);
        }
        if (count > 0) write(`${entries}/count`, undefined);
      }
      write(fromKey, encode(second));
      return due;
    },
    nextDue(read, horizonSeconds = 3600) {
      const fromRaw = read(fromKey);
      if (!fromRaw) return undefined;
      const from = decode<number>(fromRaw);
      for (let second = from; second < from + horizonSeconds; second++)
        if (read(`${index(second)}/count`)) return second * 1000;
      return undefined;
    },
  };
}

/** A record with its absent fields left out, not written as CBOR `undefined` (so a record's bytes do not depend on how it was built). */
export function withoutUndefined<T extends object>(value: T): T {
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) if (record[key] !== undefined) out[key] = record[key];
  return out as T;
}

/** A whole number kept under a key (absent is 0). */
export function readNumber(read: ReadState, key: string): number {
  const raw = read(key);
  return raw ? decode<number>(raw) : 0;
}

/** Adds to a number kept under a key, never below 0; at 0 the key is deleted. */
export function addToNumber(read: ReadState, write: WriteState, key: string, delta: number): void {
  const next = Math.max(0, readNumber(read, key) + delta);
  write(key, next > 0 ? encode(next) : undefined);
}
