import type { ConsensusChain } from '../../chain/capabilities.js';
import type { Block } from '../../chain/schemas.js';
import type { SignedTransaction } from '../../sdk/transaction.js';

/** The raw bytes of a transaction pending in this node's mempool, if it is. */
export function pendingRaw(
  chain: Pick<ConsensusChain, 'pendingTransaction' | 'rawTransaction'>,
  hash: string,
): Uint8Array | undefined {
  const pending = chain.pendingTransaction(hash);
  return pending ? chain.rawTransaction(pending) : undefined;
}

/** Where a block's transactions come from when the block arrives as a list of hashes. */
export interface TransactionSources {
  /** The raw bytes held here for a hash (a proposal already held, the mempool), if any. */
  local(hash: string): Uint8Array | undefined;
  /**
   * Resolves once these are held here, or once the transactions this node is admitting now are held
   * (or refused), or it stops waiting.
   */
  admitted(hashes: readonly string[]): Promise<void>;
  /** Asks the peer that relayed the block for these; undefined where it has none. Throws when it does not answer. */
  fetch(hashes: readonly string[]): Promise<(Uint8Array | undefined)[]>;
  /** Decodes and signature-checks raw bytes on the worker; undefined for bytes that are no valid transaction. */
  decode(raws: readonly Uint8Array[]): Promise<(SignedTransaction | undefined)[]>;
}

/**
 * A block's transactions in its order: `raws`, with `checked` holding those fetched (already decoded
 * and checked, by hash); `invalid` when the list itself is wrong (the proposer signed a block no honest
 * proposer makes); `missing` when they cannot all be had (the peer did not answer, or answered with
 * bytes that are not the transaction asked for).
 */
export type FilledBlock =
  | { readonly raws: Uint8Array[]; readonly checked: ReadonlyMap<string, SignedTransaction> }
  | { readonly invalid: string }
  | { readonly missing: string };

/**
 * The transactions a block lists, from what this node holds and, for the rest, from the peer that
 * relayed it. Fetched bytes count only once they decode to the very transaction the block lists at
 * that place: a peer other than the proposer must not be able to make a good block look bad.
 */
export async function fillBlock(block: Block, sources: TransactionSources): Promise<FilledBlock> {
  const hashes = block.transactions;
  if (new Set(hashes).size !== hashes.length) return { invalid: 'it lists a transaction twice' };
  const raws: (Uint8Array | undefined)[] = hashes.map((hash) => sources.local(hash));
  let wanted: number[] = [];
  for (let i = 0; i < raws.length; i++) if (raws[i] === undefined) wanted.push(i);
  if (wanted.length > 0) {
    // Under a flood this node's mempool runs behind the proposer's: most of what it lacks is still
    // being decoded here, and fetching it would decode it twice.
    await sources.admitted(wanted.map((i) => hashes[i]!));
    for (const i of wanted) raws[i] = sources.local(hashes[i]!);
    wanted = wanted.filter((i) => raws[i] === undefined);
  }
  const checked = new Map<string, SignedTransaction>();
  if (wanted.length > 0) {
    let fetched: (Uint8Array | undefined)[];
    try {
      fetched = await sources.fetch(wanted.map((i) => hashes[i]!));
    } catch (error) {
      return {
        missing: `${wanted.length} transaction(s) not held here, and the peer did not give them: ${(error as Error).message}`,
      };
    }
    const given = fetched.filter((raw): raw is Uint8Array => raw !== undefined);
    const decoded = await sources.decode(given);
    const byHash = new Map<string, { raw: Uint8Array; tx: SignedTransaction }>();
    for (const [j, tx] of decoded.entries()) if (tx) byHash.set(tx.hash, { raw: given[j]!, tx });
    let absent = 0;
    for (const i of wanted) {
      const found = byHash.get(hashes[i]!);
      if (!found) absent += 1;
      else {
        raws[i] = found.raw;
        checked.set(found.tx.hash, found.tx);
      }
    }
    if (absent > 0)
      return { missing: `the peer did not give ${absent} of the ${wanted.length} transaction(s) asked for` };
  }
  return { raws: raws as Uint8Array[], checked };
}
