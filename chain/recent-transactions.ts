import type { Receipt } from './receipts.js';

/** Transactions of the last blocks kept in memory: about a few blocks of a busy chain, or many quiet ones. */
const MAX_ENTRIES = 4_096;

interface RecentTransaction {
  readonly raw: Uint8Array;
  readonly height: number;
  readonly index: number;
  readonly receipt: Receipt;
}

/**
 * The transactions and receipts of the blocks committed last, by hash: what clients ask for right
 * after their transaction is mined (its receipt, the transaction) is answered from memory, not read
 * back from the store that was written a moment before. Oldest entries go first.
 */
export class RecentTransactions {
  private readonly entries = new Map<string, RecentTransaction>();

  add(height: number, hashes: readonly string[], raws: readonly Uint8Array[], receipts: readonly Receipt[]): void {
    hashes.forEach((hash, index) => {
      this.entries.set(hash, { raw: raws[index]!, height, index, receipt: receipts[index]! });
    });
    for (const hash of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(hash);
    }
  }

  get(hash: string): RecentTransaction | undefined {
    return this.entries.get(hash);
  }

  /** The chain went back: what it kept may be of undone blocks. */
  clear(): void {
    this.entries.clear();
  }
}
