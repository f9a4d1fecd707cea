import { concatBytes, utf8 } from '../../sdk/bytes.js';
import { prefixEnd } from './keys.js';
import type { KeyValueBackend, RawOperation } from './types.js';

export interface Range {
  /** Keys relative to the namespace. */
  gte?: Uint8Array;
  lt?: Uint8Array;
  /** Only keys that start with this (relative) prefix. */
  prefix?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

export const NAMESPACE_NAME_PATTERN = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$/;

/**
 * A key prefix on the one database. Its prefix is the UTF-8 name plus a 0x00 byte, which no name
 * contains, so one namespace's keys never fall inside another's.
 */
export class Namespace {
  readonly prefix: Uint8Array;
  private readonly end: Uint8Array | undefined;

  constructor(
    readonly name: string,
    readonly owner: string,
    private readonly backend: KeyValueBackend,
  ) {
    this.prefix = concatBytes(utf8(name), new Uint8Array([0]));
    this.end = prefixEnd(this.prefix);
  }

  key(relative: Uint8Array): Uint8Array {
    return concatBytes(this.prefix, relative);
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.backend.get(this.key(key));
  }

  getMany(keys: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return this.backend.getMany(keys.map((key) => this.key(key)));
  }

  /** Ordered entries with keys relative to the namespace. */
  async *entries(range: Range = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    const base = range.prefix ? this.key(range.prefix) : this.prefix;
    const baseEnd = range.prefix ? prefixEnd(base) : this.end;
    const gte = range.gte ? maxBytes(this.key(range.gte), base) : base;
    const lt = range.lt ? minBytes(this.key(range.lt), baseEnd) : baseEnd;
    const raw = {
      gte,
      ...(lt ? { lt } : {}),
      ...(range.reverse ? { reverse: true } : {}),
      ...(range.limit !== undefined ? { limit: range.limit } : {}),
    };
    for await (const [key, value] of this.backend.iterate(raw)) {
      yield [key.subarray(this.prefix.length), value];
    }
  }

  /** A single atomic write; for several writes, or writes across namespaces, use a WriteBatch. */
  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    await this.backend.write([{ type: 'put', key: this.key(key), value }]);
  }

  async del(key: Uint8Array): Promise<void> {
    await this.backend.write([{ type: 'del', key: this.key(key) }]);
  }
}

/** Writes to any number of namespaces, applied all at once or not at all. */
export class WriteBatch {
  private readonly operations: RawOperation[] = [];

  constructor(private readonly backend: KeyValueBackend) {}

  put(namespace: Namespace, key: Uint8Array, value: Uint8Array): this {
    this.operations.push({ type: 'put', key: namespace.key(key), value });
    return this;
  }

  del(namespace: Namespace, key: Uint8Array): this {
    this.operations.push({ type: 'del', key: namespace.key(key) });
    return this;
  }

  get size(): number {
    return this.operations.length;
  }

  async write(options: { sync?: boolean } = {}): Promise<void> {
    await this.backend.write(this.operations, options);
    this.operations.length = 0;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function maxBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  return compareBytes(a, b) >= 0 ? a : b;
}

function minBytes(a: Uint8Array, b: Uint8Array | undefined): Uint8Array {
  return b === undefined || compareBytes(a, b) <= 0 ? a : b;
}

export function isPrefixOf(prefix: Uint8Array, key: Uint8Array): boolean {
  return prefix.length <= key.length && compareBytes(prefix, key.subarray(0, prefix.length)) === 0;
}
