import type { KeyValueBackend, RawOperation, RawRange } from './types.js';

/** The subset of abstract-level (v1 to v3) that both backends share. */
interface LevelLike {
  open(): Promise<void>;
  close(): Promise<void>;
  getMany(keys: Uint8Array[], options?: object): Promise<(Uint8Array | Buffer | undefined)[]>;
  batch(operations: RawOperation[], options?: object): Promise<void>;
  iterator(options: object): AsyncIterable<[Uint8Array, Uint8Array]> & { close(): Promise<void> };
}

export interface BatchWriter {
  write(operations: readonly RawOperation[], sync: boolean): Promise<void>;
  readonly idle: boolean; // No write in flight: one written elsewhere now cannot overtake an earlier one.
  close(): Promise<void>;
}

const BUFFERS = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
/** Most operations of a batch written on the calling thread (no fsync, nothing in flight): it takes microseconds, the writer thread's round trip a fraction of a millisecond. */
const WRITTEN_HERE = 256;

/** Adapts an abstract-level database (RocksDB or memory-level) to the backend interface. */
export class LevelBackend implements KeyValueBackend {
  private writer: BatchWriter | undefined;
  /**
   * Reads the database has not answered yet. @nxtedition/rocksdb defers a close that comes while a
   * read is in flight and then calls back without closing: the native database, and its LOCK file,
   * would stay open until garbage collection, and reopening the data dir in this process would fail.
   */
  private readonly reading = new Set<Promise<unknown>>();
  private closing = false;

  constructor(
    readonly kind: string,
    private readonly db: LevelLike,
  ) {}

  static async open(kind: string, db: LevelLike): Promise<LevelBackend> {
    await db.open();
    return new LevelBackend(kind, db);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const [value] = await this.read(() => this.db.getMany([key], BUFFERS));
    return value ?? undefined;
  }

  async getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    if (keys.length === 0) return [];
    const values = await this.read(() => this.db.getMany([...keys], BUFFERS));
    return values.map((value) => value ?? undefined);
  }

  async *iterate(range: RawRange): AsyncIterable<[Uint8Array, Uint8Array]> {
    const options: Record<string, unknown> = { ...BUFFERS, reverse: range.reverse ?? false, limit: range.limit ?? -1 };
    if (range.gte) options.gte = range.gte;
    if (range.lt) options.lt = range.lt;
    const entries = this.db.iterator(options)[Symbol.asyncIterator]();
    try {
      for (;;) {
        const step = await this.read(() => entries.next());
        if (step.done) return;
        yield step.value;
      }
    } finally {
      await entries.return?.();
    }
  }

  private read<T>(start: () => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new Error('the database is closed'));
    const reading = start();
    this.reading.add(reading);
    const settled = (): void => void this.reading.delete(reading);
    reading.then(settled, settled);
    return reading;
  }

  /** Routes every write through `writer` (in order), e.g. to a worker thread. */
  useWriter(writer: BatchWriter): void {
    this.writer = writer;
  }

  async write(operations: readonly RawOperation[], options: { sync?: boolean } = {}): Promise<void> {
    if (operations.length === 0) return;
    if (this.writer && !(this.writer.idle && options.sync !== true && operations.length <= WRITTEN_HERE))
      return this.writer.write(operations, options.sync ?? false);
    await this.db.batch([...operations], { ...BUFFERS, sync: options.sync ?? false });
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.writer?.close();
    await Promise.allSettled(this.reading);
    await this.db.close();
  }
}
