import type { Logger } from '../kernel/log.js';

/** How often the chain says what it committed, at most. */
export const SUMMARY_EVERY_MS = 10_000;

/**
 * Blocks committed since the last summary: a node logs one line every few seconds at info (its head,
 * how many blocks it produced and imported, transactions, time a block), not one a block — a devnet
 * of several nodes would otherwise fill its logs with them. Each block still has its line at debug.
 */
export class BlockActivity {
  private produced = 0;
  private imported = 0;
  private transactions = 0;
  private ms = 0;
  private since = performance.now();

  count(source: 'produced' | 'imported', transactions: number, ms: number): void {
    if (source === 'produced') this.produced++;
    else this.imported++;
    this.transactions += transactions;
    this.ms += ms;
  }

  /** Logs what was committed since the last call, if anything, and starts counting again. */
  report(log: Logger, head: number): void {
    const blocks = this.produced + this.imported;
    const now = performance.now();
    const seconds = Math.round((now - this.since) / 1000);
    this.since = now;
    if (blocks === 0) return;
    const made = [
      this.produced > 0 ? `${this.produced} produced` : '',
      this.imported > 0 ? `${this.imported} imported` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const msPerBlock = Number((this.ms / blocks).toFixed(1));
    log.info(
      { head, produced: this.produced, imported: this.imported, transactions: this.transactions, msPerBlock },
      `head ${head}: ${blocks} block${blocks === 1 ? '' : 's'} in ${seconds} s (${made}), ${this.transactions} tx, ${msPerBlock} ms a block`,
    );
    this.produced = this.imported = this.transactions = this.ms = 0;
  }
}
