/** One write of an atomic batch, with an absolute key (namespace prefix included). */
export type RawOperation = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

export interface RawRange {
  gte?: Uint8Array;
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

/**
 * What a storage backend provides: byte keys and values, ordered iteration, atomic batches.
 * RocksDB and memory implement it; everything above speaks only this interface.
 */
export interface KeyValueBackend {
  readonly kind: string;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
  iterate(range: RawRange): AsyncIterable<[Uint8Array, Uint8Array]>;
  /** Applies all operations or none. `sync` waits for the write-ahead log to reach the disk. */
  write(operations: readonly RawOperation[], options?: { sync?: boolean }): Promise<void>;
  close(): Promise<void>;
}
