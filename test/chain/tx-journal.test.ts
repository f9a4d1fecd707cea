import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal, TxJournal } from '../../chain/tx-journal.js';
import { captureLog } from '../helpers/log-capture.js';
import { tempDir } from '../helpers/temp-dirs.js';

const journalPath = (): string => join(tempDir('svc-journal-'), 'pending-transactions.journal');

const raw = (i: number, size = 40): Uint8Array => Uint8Array.from({ length: size }, (_, j) => (i * 31 + j) & 0xff);

describe('journal of acknowledged transactions', () => {
  it('holds every record appended at once, in order, once each append has resolved', async () => {
    const path = journalPath();
    const { journal, records } = await TxJournal.open(path, { maxBytes: 1 << 20 }, captureLog().log);
    expect(records).toEqual([]);
    await Promise.all(Array.from({ length: 200 }, (_, i) => journal.append(`h${i}`, raw(i), 1000 + i)));
    const { records: read, validBytes } = readJournal(readFileSync(path));
    expect(read.map((r) => r.time)).toEqual(Array.from({ length: 200 }, (_, i) => 1000 + i));
    expect(read.every((r, i) => Buffer.from(r.raw).equals(Buffer.from(raw(i))))).toBe(true);
    expect(validBytes).toBe(statSync(path).size);
    await journal.close();
    await expect(journal.append('late', raw(1))).rejects.toThrow(/stopping/);
  });

  it('skips a torn last record with a warning, keeps the whole ones before it, and appends after them', async () => {
    const path = journalPath();
    const first = await TxJournal.open(path, { maxBytes: 1 << 20 }, captureLog().log);
    for (let i = 0; i < 3; i++) await first.journal.append(`h${i}`, raw(i, 100), i);
    await first.journal.close();
    truncateSync(path, statSync(path).size - 30);
    const logs = captureLog();
    const second = await TxJournal.open(path, { maxBytes: 1 << 20 }, logs.log);
    expect(second.records.map((r) => r.time)).toEqual([0, 1]);
    expect(logs.lines.some((line) => line.level === 40 && /torn or corrupt record/.test(String(line.msg)))).toBe(true);
    await second.journal.append('h9', raw(9, 100), 9);
    await second.journal.close();
    expect(readJournal(readFileSync(path)).records.map((r) => r.time)).toEqual([0, 1, 9]);
  });

  it('stops at a record whose checksum fails (a corrupt tail)', async () => {
    const path = journalPath();
    const { journal } = await TxJournal.open(path, { maxBytes: 1 << 20 }, captureLog().log);
    for (let i = 0; i < 3; i++) await journal.append(`h${i}`, raw(i), i);
    await journal.close();
    const bytes = readFileSync(path);
    bytes[bytes.length - 1]! ^= 0xff;
    writeFileSync(path, bytes);
    expect(readJournal(readFileSync(path)).records.map((r) => r.time)).toEqual([0, 1]);
  });

  it('compacts to the records still pending, and takes appends made while it rewrites', async () => {
    const path = journalPath();
    const { journal } = await TxJournal.open(path, { maxBytes: 1 << 20 }, captureLog().log);
    for (let i = 0; i < 10; i++) await journal.append(`h${i}`, raw(i), i);
    const pending = new Set(['h2', 'h5', 'h7', 'h10']);
    const late = journal.append('h10', raw(10), 10);
    await Promise.all([journal.compact((hash) => pending.has(hash), true), late]);
    await journal.close();
    const times = readJournal(readFileSync(path)).records.map((r) => r.time);
    expect(times.sort((a, b) => a - b)).toEqual([2, 5, 7, 10]);
  });

  it('refuses a record past its bound with mempool_full, and has room again once records leave', async () => {
    const path = journalPath();
    const { journal } = await TxJournal.open(path, { maxBytes: 600 }, captureLog().log);
    for (let i = 0; i < 5; i++) {
      journal.checkRoom(100);
      await journal.append(`h${i}`, raw(i, 100), i);
    }
    let refusal: unknown;
    try {
      journal.checkRoom(100);
    } catch (error) {
      refusal = error;
    }
    expect((refusal as Error).message).toBe('mempool_full');
    await journal.compact((hash) => hash !== 'h0');
    expect(() => journal.checkRoom(100)).not.toThrow();
    await journal.close();
  });

  it('a compaction that comes when the journal is closing leaves the file as it is', async () => {
    const path = journalPath();
    const { journal } = await TxJournal.open(path, { maxBytes: 1 << 20 }, captureLog().log);
    for (let i = 0; i < 4; i++) await journal.append(`h${i}`, raw(i), i);
    const before = readFileSync(path);
    // Both asked at once, the close first: the compaction must not reopen (and leak) the file.
    await Promise.all([journal.close(), journal.compact(() => false, true)]);
    expect(readFileSync(path).equals(before)).toBe(true);
    await journal.compact(() => false, true);
    expect(readFileSync(path).equals(before)).toBe(true);
  });
});
