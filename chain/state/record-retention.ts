import { decode, encode } from '../../sdk/encoding.js';
import { GenesisError } from '../genesis.js';
import type { GenesisParameters } from '../contract.js';
import type { ChainReader } from '../capabilities.js';
import { appendIndexed, drainIndexed, type ReadState, type WriteState } from './indexed.js';

/**
 * Records that leave the consensus state some blocks after they settle (settled jobs, closed deals):
 * every node drops them at the same height, so the state stops growing with history; history (and an
 * archive node, always) still answers for them.
 *
 * - `params/<name>` -> CBOR uint: how many blocks a settled record stays, from a genesis file's
 *   `"<name>"` (absent: the default, so a genesis without it keeps its hash)
 * - `<prefix>/forget/<height>/<n>` (and `count`) -> ids of records that leave the state in that block
 */
export class RecordRetention {
  readonly paramKey: string;

  constructor(
    /** The genesis file's field, e.g. `jobRecordBlocks`. */
    readonly param: string,
    /** The records' state prefix, e.g. `oon`. */
    private readonly prefix: string,
    /** The record's key in the state. */
    private readonly recordKey: (id: string) => string,
    private readonly fallback: number,
  ) {
    this.paramKey = `params/${param}`;
  }

  /** How many blocks a settled record stays in the state. */
  blocks(read: ReadState): number {
    const raw = read(this.paramKey);
    return raw ? decode<number>(raw) : this.fallback;
  }

  /** The genesis file's value, when it has one, into block 0. */
  genesis = ({ params }: GenesisParameters): [string, Uint8Array][] => {
    const blocks = params[this.param];
    if (blocks === undefined) return [];
    if (!Number.isSafeInteger(blocks) || (blocks as number) < 1)
      throw new GenesisError(`genesis "${this.param}" must be a positive integer`);
    return [[this.paramKey, encode(blocks)]];
  };

  private forgetIndex = (height: number): string => `${this.prefix}/forget/${height}`;

  /** A record settled in the block at `height`: it leaves the state `blocks` later. */
  settled(read: ReadState, write: WriteState, height: number, id: string): void {
    appendIndexed(read, write, this.forgetIndex(height + this.blocks(read)), id);
  }

  /** The ids whose time is the block at `height`, each removed from the state (`before` first: what else points at it). */
  forgetDue(read: ReadState, write: WriteState, height: number, before?: (id: string) => void): void {
    for (const id of drainIndexed(read, write, this.forgetIndex(height))) {
      before?.(id);
      write(this.recordKey(id), undefined);
    }
  }

  /**
   * For a record absent from this node's state and history, made by transaction `id` of `kind`: the
   * block of that transaction when the record was real and has been pruned here, else undefined.
   * Mined longer ago than a settled record stays, and not failed (as far as this node still keeps its
   * receipt), the record existed. Younger, it is a record not readable yet: a block being committed
   * shows its transactions a moment before its state.
   */
  async prunedSince(chain: ChainReader, id: string, kind: string): Promise<number | undefined> {
    const made = await chain.getTransaction(id);
    if (made?.tx.kind !== kind || made.height === undefined) return undefined;
    if (made.height + this.blocks((key) => chain.state.get(key)) > chain.head.height) return undefined;
    return (await chain.getReceipt(id))?.status === 'failed' ? undefined : made.height;
  }
}
