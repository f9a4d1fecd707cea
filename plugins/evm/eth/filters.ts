import { randomBytes } from 'node:crypto';
import type { EthApi, LogFilter } from './api.js';
import { EthRpcError } from './errors.js';

type Filter =
  | { readonly kind: 'logs'; readonly filter: LogFilter; next: number; seen: number }
  | { readonly kind: 'blocks'; next: number; seen: number }
  | { readonly kind: 'pending'; hashes: string[]; seen: number };

/** Filters forgotten after this long without a poll, as geth does (5 minutes). */
const IDLE_MS = 5 * 60_000;
const MAX_FILTERS = 1_000;
/** Pending hashes a filter holds between polls. */
const MAX_PENDING = 10_000;

/**
 * Poll filters (`eth_newFilter`, `eth_newBlockFilter`, `eth_newPendingTransactionFilter`,
 * `eth_getFilterChanges`): what changed since the last poll. Held in memory, per node; a filter not
 * polled for five minutes is dropped, and polling it then answers "filter not found".
 */
export class PollFilters {
  private readonly filters = new Map<string, Filter>();

  constructor(
    private readonly api: EthApi,
    private readonly now: () => number = Date.now,
  ) {}

  private add(filter: Filter): string {
    this.expire();
    if (this.filters.size >= MAX_FILTERS)
      throw new EthRpcError(-32000, `too many filters (${MAX_FILTERS}); uninstall some or let them expire`);
    const id = `0x${randomBytes(16).toString('hex')}`;
    this.filters.set(id, filter);
    return id;
  }

  /** From its `fromBlock` when it names a block; otherwise (latest, pending) from the next block on, as geth starts one. */
  async newLogFilter(filter: LogFilter): Promise<string> {
    // Checks the range now, so a filter that could never answer is refused at once.
    const range = await this.api.range({ ...filter, toBlock: filter.toBlock ?? 'latest' });
    const named =
      filter.blockHash !== undefined ||
      (filter.fromBlock !== undefined && !['latest', 'pending', 'safe', 'finalized'].includes(filter.fromBlock));
    return this.add({
      kind: 'logs',
      filter,
      next: named ? (range?.from ?? this.api.index.indexedTo + 1) : this.api.index.indexedTo + 1,
      seen: this.now(),
    });
  }

  newBlockFilter(head: number): string {
    return this.add({ kind: 'blocks', next: head + 1, seen: this.now() });
  }

  newPendingFilter(): string {
    return this.add({ kind: 'pending', hashes: [], seen: this.now() });
  }

  /** A pending Ethereum transaction, for the pending-transaction filters. */
  pending(hash: string): void {
    for (const filter of this.filters.values())
      if (filter.kind === 'pending' && filter.hashes.length < MAX_PENDING) filter.hashes.push(hash);
  }

  /** The chain went back to block `height`: block and log filters report from the block after it again. */
  rewound(height: number): void {
    for (const filter of this.filters.values())
      if (filter.kind !== 'pending' && filter.next > height + 1) filter.next = height + 1;
  }

  uninstall(id: string): boolean {
    return this.filters.delete(id.toLowerCase());
  }

  private get(id: string): Filter {
    this.expire();
    const filter = this.filters.get(id.toLowerCase());
    if (!filter) throw new EthRpcError(-32000, 'filter not found');
    filter.seen = this.now();
    return filter;
  }

  async changes(id: string, blockHash: (height: number) => Promise<string>): Promise<unknown[]> {
    const filter = this.get(id);
    if (filter.kind === 'pending') return filter.hashes.splice(0);
    const head = this.api.index.indexedTo;
    if (filter.kind === 'blocks') {
      const hashes: string[] = [];
      for (; filter.next <= head; filter.next++) hashes.push(await blockHash(filter.next));
      return hashes;
    }
    const to = filter.filter.toBlock?.startsWith('0x') ? Math.min(head, Number(filter.filter.toBlock)) : head;
    if (filter.next > to) return [];
    const logs = await this.api.logsIn(filter.next, to, filter.filter);
    filter.next = to + 1;
    return logs;
  }

  /** Every log of a log filter's range (`eth_getFilterLogs`). */
  async logs(id: string): Promise<unknown[]> {
    const filter = this.get(id);
    if (filter.kind !== 'logs') throw new EthRpcError(-32000, 'filter not found');
    return this.api.logs(filter.filter);
  }

  private expire(): void {
    const oldest = this.now() - IDLE_MS;
    for (const [id, filter] of this.filters) if (filter.seen < oldest) this.filters.delete(id);
  }
}
