import { constants, existsSync, readFileSync, truncateSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { syncDirectory } from '../kernel/storage/sync-directory.js';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { domainError } from '../sdk/errors.js';
import type { Logger } from '../kernel/log.js';

/**
 * The journal of acknowledged transactions: every transaction the node acknowledges is appended here
 * and made durable (an O_DSYNC write) before the acknowledgement leaves, and replayed into the mempool
 * at start. Appends that arrive together, or while a write is under way, go in one write (group
 * commit).
 *
 * A record is `u32 body length | u32 crc32 of body | body`, the body `f64 time acknowledged (ms) |
 * raw transaction`. A crash can tear only the last record: reading stops there with a warning and
 * the file is cut back to the last whole record.
 */
const HEADER = 8;
const TIME = 8;

export interface JournalRecord {
  readonly time: number;
  readonly raw: Uint8Array;
}

export interface JournalOptions {
  /** Most bytes of live records; an acknowledgement past it is refused with `mempool_full`. */
  readonly maxBytes: number;
}

interface Waiter {
  readonly bytes: Buffer;
  resolve(): void;
  reject(error: Error): void;
}

export function encodeRecord(time: number, raw: Uint8Array): Buffer {
  const record = Buffer.allocUnsafe(HEADER + TIME + raw.length);
  record.writeUInt32LE(TIME + raw.length, 0);
  record.writeDoubleLE(time, HEADER);
  record.set(raw, HEADER + TIME);
  record.writeUInt32LE(crc32(record.subarray(HEADER)), 4);
  return record;
}

/** The whole records of a journal file, and where the last whole one ends. */
export function readJournal(bytes: Buffer): { records: JournalRecord[]; validBytes: number } {
  const records: JournalRecord[] = [];
  let offset = 0;
  while (offset + HEADER <= bytes.length) {
    const length = bytes.readUInt32LE(offset);
    if (length < TIME || offset + HEADER + length > bytes.length) break;
    const body = bytes.subarray(offset + HEADER, offset + HEADER + length);
    if (crc32(body) !== bytes.readUInt32LE(offset + 4)) break;
    records.push({ time: body.readDoubleLE(0), raw: new Uint8Array(body.subarray(TIME)) });
    offset += HEADER + length;
  }
  return { records, validBytes: offset };
}

export class TxJournal {
  /** Records written or queued by transaction hash: what a compaction keeps if still pending. */
  private readonly live = new Map<string, Buffer>();
  private liveBytes = 0;
  private fileBytes: number;
  private queue: Waiter[] = [];
  private writing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly path: string,
    private handle: FileHandle,
    size: number,
    private readonly options: JournalOptions,
    private readonly log: Logger,
  ) {
    this.fileBytes = size;
  }

  /**
   * Opens (or creates) the journal at `path`, returning the records it holds. A torn or corrupt tail
   * is cut off with a warning naming how many bytes were dropped.
   */
  static async open(
    path: string,
    options: JournalOptions,
    log: Logger,
  ): Promise<{ journal: TxJournal; records: JournalRecord[] }> {
    const bytes = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
    const { records, validBytes } = readJournal(bytes);
    if (validBytes < bytes.length) {
      log.warn(
        { path, records: records.length, droppedBytes: bytes.length - validBytes },
        `the transaction journal ends in a torn or corrupt record (${bytes.length - validBytes} bytes, written when the node stopped mid-write): skipped; the ${records.length} whole records before it are replayed`,
      );
      truncateSync(path, validBytes);
    }
    const handle = await openForAppend(path);
    return { journal: new TxJournal(path, handle, validBytes, options, log), records };
  }

  /** Bytes of records still pending (written or queued). */
  get size(): number {
    return this.liveBytes;
  }

  /** Throws `mempool_full` when a record of `rawLength` bytes would take the journal past its bound. */
  checkRoom(rawLength: number): void {
    const needed = HEADER + TIME + rawLength;
    if (this.liveBytes + needed > this.options.maxBytes) {
      throw domainError(
        'mempool_full',
        `the journal of pending transactions holds ${this.liveBytes} of its ${this.options.maxBytes} bytes; retry once blocks have included some`,
        { journalBytes: this.liveBytes, maxBytes: this.options.maxBytes },
      );
    }
  }

  /** Appends a record; resolves once it is on disk (with whatever else was queued meanwhile). */
  append(hash: string, raw: Uint8Array, time = Date.now()): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the transaction journal is closed: the node is stopping'));
    const bytes = encodeRecord(time, raw);
    const previous = this.live.get(hash);
    if (previous) this.liveBytes -= previous.length;
    this.live.set(hash, bytes);
    this.liveBytes += bytes.length;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ bytes, resolve, reject });
      // Started on the next turn, not now: the submissions decoded together (a batch's worth) are all
      // queued by then, and share one write.
      this.writing ??= new Promise<void>((started) => setImmediate(started)).then(() => this.drain());
    });
  }

  /** Records kept in memory for one already on disk (replayed at start): a compaction keeps them while pending. */
  adopt(hash: string, record: JournalRecord): void {
    const bytes = encodeRecord(record.time, record.raw);
    const previous = this.live.get(hash);
    if (previous) this.liveBytes -= previous.length;
    this.live.set(hash, bytes);
    this.liveBytes += bytes.length;
  }

  /**
   * Forgets records whose transactions are no longer pending (mined, expired or dropped) and, once
   * the file is mostly such dead records, rewrites it with the live ones only.
   */
  async compact(isPending: (hash: string) => boolean, force = false): Promise<void> {
    // A walk over every live record rather than the block's hashes: a record also dies when the
    // mempool drops its transaction (expired, replaced, its nonce taken), which no block names.
    for (const [hash, bytes] of this.live) {
      if (isPending(hash)) continue;
      this.live.delete(hash);
      this.liveBytes -= bytes.length;
    }
    if (this.closed || (!force && this.fileBytes < 2 * this.liveBytes + 1024 * 1024)) return;
    await this.exclusive(async () => {
      // Closed while this waited its turn: the file stays as it is.
      if (this.closed) return;
      let waiting: Waiter[] = [];
      const temp = `${this.path}.compacting`;
      try {
        await this.handle.close();
        // Appends queued until now are in `live` already: this rewrite writes them. Taken in the same
        // turn as the records, so none slips between.
        waiting = this.queue;
        this.queue = [];
        const bytes = Buffer.concat([...this.live.values()]);
        await writeDurably(temp, bytes);
        await rename(temp, this.path);
        await syncDirectory(dirname(this.path));
        this.fileBytes = bytes.length;
        for (const waiter of waiting) waiter.resolve();
      } catch (error) {
        for (const waiter of waiting) waiter.reject(error as Error);
        throw error;
      } finally {
        this.handle = await openForAppend(this.path);
      }
    });
  }

  /** Writes what is queued and closes the file; later appends are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Inside the turn, so a compaction waiting for one finds the journal closed, not its file.
    await this.exclusive(() => this.handle.close());
  }

  /** Runs `work` once no write is under way, with none starting until it ends. */
  private async exclusive(work: () => Promise<void>): Promise<void> {
    while (this.writing) await this.writing;
    let done!: () => void;
    this.writing = new Promise<void>((resolve) => (done = resolve));
    try {
      await work();
    } finally {
      this.writing = undefined;
      done();
      if (this.queue.length > 0) this.writing = this.drain();
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue;
      this.queue = [];
      try {
        const bytes = group.length === 1 ? group[0]!.bytes : Buffer.concat(group.map((w) => w.bytes));
        // One call: the file is opened O_DSYNC, so the write returns once the bytes (and the size) are on disk.
        await this.handle.write(bytes);
        this.fileBytes += bytes.length;
        for (const waiter of group) waiter.resolve();
      } catch (error) {
        this.log.error({ err: error, path: this.path }, 'writing the transaction journal failed');
        const failure = new Error(
          `the transaction journal could not be written (${(error as Error).message}): the transaction is pending but would not survive a restart`,
        );
        for (const waiter of group) waiter.reject(failure);
      }
    }
    this.writing = undefined;
  }
}

/** Appending, each write durable when it returns (data and size: O_DSYNC). */
function openForAppend(path: string): Promise<FileHandle> {
  return open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC);
}

/** Writes `bytes` as the whole of `path`, synced. */
async function writeDurably(path: string, bytes: Buffer): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
