import { concatBytes, utf8 } from '../sdk/bytes.js';
import { cbor, hash32, raw, u64, utf8Text, type Codec } from '../kernel/storage/codec.js';
import { readU64Key, u64Key } from '../kernel/storage/keys.js';
import { defineLayout, Table, type Layout } from '../kernel/storage/layout.js';
import type { Namespace } from '../kernel/storage/namespace.js';
import type { Receipt } from './receipts.js';
import type { Block } from './schemas.js';
import type { CommitCertificate } from '../sdk/block.js';
import { accountTransactionKey } from './account-transactions.js';

const SEP = new Uint8Array([0]);
const text = new TextDecoder();

/** A state key's version: the value it took at `height`. */
export interface StateVersion {
  readonly key: string;
  readonly height: number;
}

/** `key` superseded at `height`: its version at `superseded` can go once the history window passes `height`. */
export interface SupersededVersion {
  readonly height: number;
  readonly key: string;
  readonly superseded: number;
}

/** The current value of a state key with the height it last changed at. */
export interface StateEntry {
  readonly height: number;
  readonly value: Uint8Array;
}

/** `name ‖ 0x00 ‖ u64 height`: a key's versions sort together, oldest first. */
export const stateVersionKey: Codec<StateVersion> & { versionsOf(key: string): Uint8Array } = {
  layout: 'utf8 state key ‖ 0x00 ‖ u64 height',
  encode: ({ key, height }) => concatBytes(utf8(key), SEP, u64Key(height)),
  decode: (bytes) => ({
    key: text.decode(bytes.subarray(0, bytes.length - 9)),
    height: Number(readU64Key(bytes, bytes.length - 8)),
  }),
  /** The prefix every version of `key` starts with. */
  versionsOf: (key) => concatBytes(utf8(key), SEP),
};

/** `u64 height ‖ name ‖ 0x00 ‖ u64 old height`: ordered by when the version may go. */
export const supersededKey: Codec<SupersededVersion> = {
  layout: 'u64 height ‖ utf8 key ‖ 0x00 ‖ u64 old height',
  encode: ({ height, key, superseded }) => concatBytes(u64Key(height), utf8(key), SEP, u64Key(superseded)),
  decode: (bytes) => ({
    height: Number(readU64Key(bytes)),
    key: text.decode(bytes.subarray(8, bytes.length - 9)),
    superseded: Number(readU64Key(bytes, bytes.length - 8)),
  }),
};

const stateEntry: Codec<StateEntry> = {
  layout: 'u64 height of last change ‖ value',
  encode: ({ height, value }) => concatBytes(u64Key(height), value),
  decode: (bytes) => ({ height: Number(readU64Key(bytes)), value: bytes.subarray(8) }),
};

/** `[raw transaction, block height, index in the block]`. */
export type StoredTransactionRecord = [Uint8Array, number, number];

/**
 * The chain's storage layouts, each declared once with its codecs: the chain plugin claims them, the
 * block store and the world state read and write through them, `svc-node prune` opens them,
 * `svc-node plugins` lists them.
 */
export const CHAIN_LAYOUTS = {
  blocks: defineLayout('chain.blocks', u64('height'), cbor<Block>('block')),
  blockIndex: defineLayout('chain.block-index', hash32('block hash'), u64('height')),
  commits: defineLayout(
    'chain.commits',
    u64('height'),
    cbor<CommitCertificate>('commit certificate: the precommits this node committed the block with'),
  ),
  meta: defineLayout(
    'chain.meta',
    utf8Text('name'),
    raw('value'),
    '"head" -> u64 height of the head block; "archive" -> flag of a data dir that has been an archive; "account-index-from" -> u64 first height of chain.account-transactions; "base" -> u64 height of the state snapshot a state-synced node began from',
  ),
  transactions: defineLayout(
    'chain.transactions',
    hash32('tx hash'),
    cbor<StoredTransactionRecord>('[raw tx, height, index]'),
  ),
  receipts: defineLayout('chain.receipts', hash32('tx hash'), cbor<Receipt>('receipt')),
  accountTransactions: defineLayout('chain.account-transactions', accountTransactionKey, hash32('tx hash')),
  ancestorHashes: defineLayout(
    'chain.ancestor-hashes',
    u64('height'),
    hash32('block hash'),
    "the hashes of the blocks before a state-synced node's first block, for BLOCKHASH",
  ),
  stateEntries: defineLayout('state.entries', utf8Text('state key'), stateEntry),
  stateHistory: defineLayout('state.history', stateVersionKey, raw('value at that height (empty = absent)')),
  statePrunable: defineLayout('state.prunable', supersededKey, raw('empty: history entry superseded at height')),
};

export type ChainLayouts = typeof CHAIN_LAYOUTS;
export type ChainTables = {
  readonly [K in keyof ChainLayouts]: ChainLayouts[K] extends Layout<infer Key, infer Value>
    ? Table<Key, Value>
    : never;
};

/** Every chain namespace as a table, opened by its declared name (through a plugin context, or a store claim). */
export function openChainLayouts(open: (name: string) => Namespace): ChainTables {
  const out: Record<string, Table<unknown, unknown>> = {};
  for (const [key, layout] of Object.entries(CHAIN_LAYOUTS) as [string, Layout<unknown, unknown>][])
    out[key] = new Table(open(layout.name), layout);
  return out as unknown as ChainTables;
}
