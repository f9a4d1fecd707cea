import { cbor, u64, utf8Text } from '../../../kernel/storage/codec.js';
import { defineLayout, type Table } from '../../../kernel/storage/layout.js';
import { u64Key } from '../../../kernel/storage/keys.js';
import type { WriteBatch } from '../../../kernel/storage/namespace.js';
import type { CommittedReceipt } from '../../../chain/contract.js';
import { ETHEREUM_KIND } from '../../../chain/ethereum-envelope.js';
import { DEV_IMPERSONATED_KIND } from '../dev-edits.js';
import type { Logger } from '../../../kernel/log.js';
import { hexOfAddress } from '../../../sdk/address.js';
import { CALLBACK_KIND } from '../../../chain/system-transactions.js';

/**
 * One log as the index keeps it: the position of its transaction among the block's Ethereum ones
 * (-1 for a native transaction's, with its hash last), emitter, topics, data.
 */
export type IndexedLog = readonly [
  txPosition: number,
  address: string,
  topics: readonly string[],
  data: string,
  nativeTx?: string,
];

/** What `eth_` views need of a block that holds EVM transactions. */
export interface EthBlockEntry {
  /** The hashes of its Ethereum-envelope transactions, in block order: what `eth_` block views list. */
  readonly transactions: readonly string[];
  /** Gas each of those used: a header's `gasUsed` and a receipt's `cumulativeGasUsed` count these only. */
  readonly gas: readonly number[];
  /** Every EVM log of the block, in order (native transactions' too: `svc_getLogs` shows them, `eth_` views skip them). */
  readonly logs: readonly IndexedLog[];
}

/** The logs `eth_` views show: those of Ethereum transactions, numbered among themselves. */
export function ethLogs(entry: EthBlockEntry): readonly IndexedLog[] {
  return entry.logs.some((log) => log[0] < 0) ? entry.logs.filter((log) => log[0] >= 0) : entry.logs;
}

export const ETH_BLOCKS = defineLayout(
  'evm.blocks',
  u64('height'),
  cbor<EthBlockEntry>('{ transactions, gas, logs } of a block with EVM transactions (none: no entry)'),
);
export const ETH_META = defineLayout(
  'evm.meta',
  utf8Text('name'),
  u64('value'),
  '"indexed" -> u64 height of the last block indexed into evm.blocks',
);

const EMPTY: EthBlockEntry = { transactions: [], gas: [], logs: [] };

/** Gas of a block's Ethereum transactions, up to and including position `upTo`. */
export const gasOf = (entry: EthBlockEntry, upTo = entry.gas.length - 1): number =>
  entry.gas.slice(0, upTo + 1).reduce((sum, g) => sum + g, 0);
const EVM_KINDS = new Set([ETHEREUM_KIND, 'evm.create', 'evm.call', DEV_IMPERSONATED_KIND, CALLBACK_KIND]);
/** Kinds Ethereum's views list as transactions (the native ones show only their logs); callbacks are the chain's system transactions. */
export const ETH_VISIBLE_KINDS: ReadonlySet<string> = new Set([ETHEREUM_KIND, DEV_IMPERSONATED_KIND, CALLBACK_KIND]);

/** The entry of a block from its receipts (undefined: no EVM transaction). */
export function entryOf(
  receipts: readonly Pick<CommittedReceipt, 'kind' | 'transactionHash' | 'gasUsed' | 'logs'>[],
): EthBlockEntry | undefined {
  const transactions: string[] = [];
  const gas: number[] = [];
  const logs: IndexedLog[] = [];
  let any = false;
  for (const receipt of receipts) {
    if (!EVM_KINDS.has(receipt.kind)) continue;
    any = true;
    const native = !ETH_VISIBLE_KINDS.has(receipt.kind);
    for (const log of receipt.logs ?? [])
      logs.push(
        native
          ? [-1, hexOfAddress(log.address), log.topics, log.data, receipt.transactionHash]
          : [transactions.length, hexOfAddress(log.address), log.topics, log.data],
      );
    if (native) continue;
    transactions.push(receipt.transactionHash);
    gas.push(receipt.gasUsed ?? 0);
  }
  return any ? { transactions, gas, logs } : undefined;
}

/**
 * The `evm.blocks` index: per block with EVM transactions, its Ethereum transactions, gas and logs.
 * Each node keeps it itself, written when a block is committed; a node that stopped between the
 * two catches up at start from the blocks and receipts it holds. Kept as long as blocks are.
 */
export class EthBlockIndex {
  private last = 0;
  private writes: Promise<unknown> = Promise.resolve();
  /** Entries added and not yet written (undefined: no EVM transaction): a receipt asked for right after its block does not wait for the write. */
  private readonly unwritten = new Map<number, EthBlockEntry | undefined>();

  constructor(
    private readonly blocks: Table<number, EthBlockEntry>,
    private readonly meta: Table<string, number>,
    /** A batch over both tables: a block's entry and the mark go in one write. */
    private readonly batch: () => WriteBatch,
    private readonly log: Logger,
  ) {}

  get indexedTo(): number {
    return this.last;
  }

  /** Indexes what the node committed while this index was not written (a crash between the two, or an upgrade). */
  async catchUp(
    head: number,
    receiptsOf: (height: number) => Promise<readonly CommittedReceipt[] | undefined>,
  ): Promise<void> {
    this.last = (await this.meta.get('indexed')) ?? 0;
    // Ahead of the chain: it went back (dev mode's revert) and the node stopped before this index followed.
    if (this.last > head) await this.dropAbove(head);
    if (this.last >= head) return;
    const from = this.last + 1;
    for (let height = from; height <= head; height++) {
      const receipts = await receiptsOf(height);
      const entry = receipts ? entryOf(receipts) : undefined;
      if (entry) await this.blocks.putNow(height, entry);
    }
    await this.meta.putNow('indexed', head);
    this.last = head;
    this.log.info({ from, to: head }, `indexed blocks ${from}-${head} for eth_ views`);
  }

  /** Indexes a committed block (writes go one after another, in block order). */
  add(height: number, receipts: readonly CommittedReceipt[]): void {
    const entry = entryOf(receipts);
    this.unwritten.set(height, entry);
    this.writes = this.writes.then(async () => {
      try {
        const batch = this.batch();
        if (entry) this.blocks.put(batch, height, entry);
        this.meta.put(batch, 'indexed', height);
        await batch.write();
        this.last = height;
      } catch (error) {
        this.log.error(
          { err: error, height },
          'indexing a block for eth_ views failed; it is indexed again at the next start',
        );
      } finally {
        this.unwritten.delete(height);
      }
    });
  }

  /** The chain went back to block `height`: the entries of the blocks undone go (in turn with the writes). */
  rewind(height: number): void {
    for (const at of this.unwritten.keys()) if (at > height) this.unwritten.delete(at);
    this.writes = this.writes
      .then(() => this.dropAbove(height))
      .catch((error: unknown) =>
        this.log.error(
          { err: error, height },
          'dropping the eth_ index of undone blocks failed; it is dropped at the next start',
        ),
      );
  }

  private async dropAbove(height: number): Promise<void> {
    const undone: number[] = [];
    for await (const [at] of this.blocks.entries({ gte: u64Key(height + 1) })) undone.push(at);
    for (const at of undone) await this.blocks.delNow(at);
    await this.meta.putNow('indexed', height);
    this.last = height;
  }

  async get(height: number): Promise<EthBlockEntry> {
    if (this.unwritten.has(height)) return this.unwritten.get(height) ?? EMPTY;
    await this.writes;
    return (await this.blocks.get(height)) ?? EMPTY;
  }

  /** Entries of blocks `from`..`to` that hold EVM transactions, in order. */
  async *range(from: number, to: number): AsyncGenerator<[number, EthBlockEntry]> {
    await this.writes;
    yield* this.blocks.entries({ gte: u64Key(from), lt: u64Key(to + 1) });
  }
}
