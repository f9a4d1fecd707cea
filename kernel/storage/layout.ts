import type { Codec } from './codec.js';
import type { Namespace, Range, WriteBatch } from './namespace.js';

/** A namespace a plugin declares: its name and its `key -> value` layout, for readers of the storage. */
export interface NamespaceSpec {
  readonly name: string;
  /** `key -> value`, for readers of the storage layout. */
  readonly description: string;
}

/** A namespace declared once with typed codecs: the plugin definition, its stores and `svc-node plugins` all use this. */
export interface Layout<K, V> extends NamespaceSpec {
  readonly key: Codec<K>;
  readonly value: Codec<V>;
}

/**
 * Declares a namespace layout. The description defaults to the codecs' own words
 * (`u64 height -> CBOR record`); give one for a namespace whose keys are names with values of
 * different kinds.
 */
export function defineLayout<K, V>(
  name: string,
  key: Codec<K>,
  value: Codec<V>,
  description = `${key.layout} -> ${value.layout}`,
): Layout<K, V> {
  return { name, key, value, description };
}

/** A namespace read and written through its layout's codecs. */
export class Table<K, V> {
  constructor(
    readonly namespace: Namespace,
    readonly layout: Layout<K, V>,
  ) {}

  async get(key: K): Promise<V | undefined> {
    const raw = await this.namespace.get(this.layout.key.encode(key));
    return raw === undefined ? undefined : this.layout.value.decode(raw);
  }

  /** Into a batch, written atomically with the rest of it. */
  put(batch: WriteBatch, key: K, value: V): void {
    batch.put(this.namespace, this.layout.key.encode(key), this.layout.value.encode(value));
  }

  del(batch: WriteBatch, key: K): void {
    batch.del(this.namespace, this.layout.key.encode(key));
  }

  /** A single atomic write of its own. */
  putNow(key: K, value: V): Promise<void> {
    return this.namespace.put(this.layout.key.encode(key), this.layout.value.encode(value));
  }

  delNow(key: K): Promise<void> {
    return this.namespace.del(this.layout.key.encode(key));
  }

  /** Entries in key order, decoded; `range` is over encoded keys. */
  async *entries(range: Range = {}): AsyncIterable<[K, V]> {
    for await (const [key, value] of this.namespace.entries(range))
      yield [this.layout.key.decode(key), this.layout.value.decode(value)];
  }
}
