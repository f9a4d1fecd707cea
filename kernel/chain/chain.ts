import type { SignedBlockHeader } from '../../sdk/block.js';
import type { ScopedEvents } from '../events.js';
import type { Logger } from '../log.js';
import type { WriteBatch } from '../storage/namespace.js';
import type { BlockStore } from './block-store.js';
import { genesisHeader, type GenesisSpec } from './genesis.js';
import { headerHash } from '../../sdk/block.js';
import type { Block } from './schemas.js';

export class ChainMismatchError extends Error {
  override name = 'ChainMismatchError';
}

export interface ChainOptions {
  readonly batch: () => WriteBatch;
  readonly blocks: BlockStore;
  readonly genesis: GenesisSpec;
  readonly events: Pick<ScopedEvents, 'emit'>;
  readonly log: Logger;
}

/** Stages a block's own state changes into the batch that commits it. */
export type StageState = (batch: WriteBatch) => void;

/** The canonical chain: its head in memory, its blocks on disk, every block committed atomically with its state. */
export class Chain {
  private current: Block | undefined;
  private producer: string | undefined;

  constructor(private readonly options: ChainOptions) {}

  get genesis(): GenesisSpec {
    return this.options.genesis;
  }

  get head(): Block {
    if (!this.current) throw new Error('chain is not open');
    return this.current;
  }

  /** Loads the stored head, or writes block 0 into an empty data dir. Refuses a data dir of another chain. */
  async open(): Promise<void> {
    const expected = genesisHeader(this.options.genesis);
    const expectedHash = headerHash(expected);
    const stored = await this.options.blocks.byHeight(0);
    if (!stored) {
      const block: Block = { ...expected, hash: expectedHash, signature: '0x', transactions: [] };
      const batch = this.options.batch();
      this.options.blocks.stage(batch, block);
      await batch.write({ sync: true });
      this.current = block;
      this.options.log.info({ genesis: expectedHash, chainId: expected.chainId }, 'wrote genesis block');
      return;
    }
    if (stored.hash !== expectedHash) {
      throw new ChainMismatchError(
        `the data dir holds chain ${stored.chainId} with genesis ${stored.hash}, not ${expected.chainId} with genesis ${expectedHash}: use another --data-dir or --network`,
      );
    }
    const height = await this.options.blocks.headHeight();
    const head = height === undefined ? undefined : await this.options.blocks.byHeight(height);
    if (!head) throw new ChainMismatchError('the data dir has a genesis block but no readable head block: the database is damaged');
    this.current = head;
  }

  getBlock(height: number): Promise<Block | undefined> {
    return this.options.blocks.byHeight(height);
  }

  getBlockByHash(hash: string): Promise<Block | undefined> {
    return this.options.blocks.byHash(hash);
  }

  /** Appends a signed block on top of the head, with the state changes `stage` adds, in one atomic write. */
  async commit(header: SignedBlockHeader, transactions: string[], stage?: StageState): Promise<Block> {
    const head = this.head;
    if (header.height !== head.height + 1 || header.parentHash !== head.hash) {
      throw new ChainMismatchError(`block ${header.height} (parent ${header.parentHash}) does not extend head ${head.height} (${head.hash})`);
    }
    const block: Block = { ...header, transactions };
    const batch = this.options.batch();
    stage?.(batch);
    this.options.blocks.stage(batch, block);
    await batch.write({ sync: true });
    this.current = block;
    this.options.events.emit('chain:block', { height: block.height, hash: block.hash, timestamp: block.timestamp, transactions: transactions.length });
    return block;
  }

  /** Marks this node as producing blocks (so it counts as synced without peers). Only one producer. */
  attachProducer(name: string): void {
    if (this.producer && this.producer !== name) throw new Error(`plugin "${name}" cannot produce blocks: "${this.producer}" already does`);
    this.producer = name;
  }

  get isProducer(): boolean {
    return this.producer !== undefined;
  }

  /** SPEC 2: synced when within 2 blocks of the best head peers announce; a lone producer is synced. */
  get synced(): boolean {
    return this.isProducer;
  }
}
