import type { KeyPair } from '../../sdk/keys.js';
import { domainError } from '../../sdk/errors.js';
import type { Block } from '../../chain/schemas.js';
import type { BlockProduction } from '../../chain/capabilities.js';
import type { ScopedEvents } from '../../kernel/events.js';
import type { Logger } from '../../kernel/log.js';
import { executionBudget } from './producer.js';

/** The block clock as it stands: what a snapshot keeps, and a revert puts back. */
/** A block's time is kept in milliseconds as a JS number: past this it would lose precision. */
const MAX_TIME_MS = Math.floor(Number.MAX_SAFE_INTEGER / 1000) * 1000;

export interface DevClock {
  readonly offsetMs: number;
  readonly nextTimestamp: number | undefined;
}

export interface DevMinerOptions {
  readonly chain: BlockProduction & {
    readonly mempool: { readonly size: number; has(hash: string): boolean };
    settleSubmissionsWith(settle: ((tx: { hash: string }) => Promise<void>) | undefined): void;
  };
  readonly events: ScopedEvents;
  readonly key: KeyPair;
  /** The interval of empty blocks when idle, ms (0: none). */
  readonly blockTime: number;
  readonly log: Logger;
}

/**
 * The block producer of dev mode (a devnet whose whole validator set is this node): a block as soon
 * as transactions wait (automine), an empty block at the interval when idle, blocks on demand, and a
 * clock that can be moved forward — what Anvil and Hardhat give a contract's tests. Every block is a
 * real block, signed and committed: a follower replays them all.
 */
export class DevMiner {
  produced = 0;
  private automine = true;
  private intervalMs: number;
  /** Added to the wall clock for the next block's time (evm_increaseTime). */
  private offsetMs = 0;
  /** The next block's time, when set (evm_setNextBlockTimestamp). */
  private nextTimestamp: number | undefined;
  private running = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private batchTimer: NodeJS.Immediate | undefined;
  private off: (() => void) | undefined;
  /** Blocks are made one at a time, in call order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The automine run a kick scheduled, until it has mined what was waiting. */
  private run: Promise<void> | undefined;
  private runDone: (() => void) | undefined;

  constructor(private readonly options: DevMinerOptions) {
    this.intervalMs = options.blockTime;
  }

  get blockTime(): number {
    return this.intervalMs;
  }

  /** Dev mode never stalls: without automine or an interval, blocks come only when asked for. */
  get stalled(): boolean {
    return false;
  }

  start(): void {
    this.running = true;
    this.off = this.options.events.on('chain:pendingTransaction', () => this.kick());
    // Under automine a client's send answers once its block is committed, as Anvil's does: its
    // receipt is there at the first look.
    this.options.chain.settleSubmissionsWith(() =>
      this.automine ? (this.run ?? Promise.resolve()) : Promise.resolve(),
    );
    this.scheduleIdle();
    if (this.options.chain.mempool.size > 0) this.kick();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.off?.();
    this.options.chain.settleSubmissionsWith(undefined);
    clearTimeout(this.idleTimer);
    if (this.batchTimer) clearImmediate(this.batchTimer);
    // A send waiting for a run that will not come answers now (its transaction stays pending).
    this.runDone?.();
    await this.queue.catch(() => undefined);
  }

  /** Whether a block is made as soon as transactions wait. */
  get automining(): boolean {
    return this.automine;
  }

  setAutomine(on: boolean): void {
    this.automine = on;
    if (on && this.options.chain.mempool.size > 0) this.kick();
    this.scheduleIdle();
  }

  /** Empty blocks every `ms` when idle; 0 turns them off. */
  setInterval(ms: number): void {
    this.intervalMs = ms;
    this.scheduleIdle();
  }

  /** Moves the clock of the blocks to come forward by `seconds`; answers the whole offset, in seconds. */
  increaseTime(seconds: number): number {
    const offsetMs = this.offsetMs + seconds * 1000;
    if (Date.now() + offsetMs > MAX_TIME_MS)
      throw domainError(
        'invalid_params',
        `moving the clock ${seconds} s on would put the blocks' time past ${MAX_TIME_MS / 1000} s (2^53 − 1 ms)`,
        { field: 'seconds' },
      );
    this.offsetMs = offsetMs;
    return Math.round(this.offsetMs / 1000);
  }

  /** The next block's time in seconds: after the head's (a chain's time never goes back). */
  setNextBlockTimestamp(seconds: number): void {
    const head = this.options.chain.head.timestamp;
    if (seconds * 1000 <= head)
      throw domainError(
        'invalid_params',
        `the next block's time must be after the head's (${Math.floor(head / 1000)} s); got ${seconds}`,
        { field: 'timestamp', head: Math.floor(head / 1000) },
      );
    if (seconds * 1000 > MAX_TIME_MS)
      throw domainError(
        'invalid_params',
        `the next block's time must be at most ${MAX_TIME_MS / 1000} s (2^53 − 1 ms); got ${seconds}`,
        { field: 'timestamp' },
      );
    this.nextTimestamp = seconds * 1000;
  }

  get clock(): DevClock {
    return { offsetMs: this.offsetMs, nextTimestamp: this.nextTimestamp };
  }

  /** Runs `rewind` between blocks (none is made meanwhile), then puts the clock back to `clock` (Hardhat's revert restores it too). */
  revert<T>(rewind: () => Promise<T>, clock: DevClock): Promise<T> {
    return this.enqueue(async () => {
      const result = await rewind();
      this.offsetMs = clock.offsetMs;
      this.nextTimestamp = clock.nextTimestamp;
      this.scheduleIdle();
      return result;
    });
  }

  /** Makes `count` blocks now, holding what is pending, each `intervalSeconds` after the one before (Anvil's `anvil_mine`). */
  mine(count: number, intervalSeconds = 1): Promise<Block> {
    return this.enqueue(async () => {
      let block: Block | undefined;
      for (let i = 0; i < count; i++)
        block = await this.produce(i === 0 ? undefined : this.options.chain.head.timestamp + intervalSeconds * 1000);
      return block!;
    });
  }

  /** Makes a block now unless `hash` is already in one (automine may have taken it): what a state edit waits for. */
  mineIncluding(hash: string): Promise<void> {
    return this.enqueue(async () => {
      if (this.options.chain.mempool.has(hash)) await this.produce();
    });
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private kick(): void {
    if (!this.running || !this.automine || this.batchTimer) return;
    let done!: () => void;
    const run = new Promise<void>((resolve) => (done = resolve));
    this.run = run;
    this.runDone = done;
    // What arrives in the same turn of the event loop goes into one block.
    this.batchTimer = setImmediate(() => {
      this.batchTimer = undefined;
      void this.enqueue(async () => {
        // What arrived while a block was made is mined next; a transaction that cannot run yet (a nonce
        // gap) leaves the loop after one block without it.
        for (;;) {
          // Another block (on demand, a state edit's) may have taken them since the kick.
          if (this.options.chain.mempool.size === 0) return;
          const block = await this.produce();
          if (
            !this.running ||
            !this.automine ||
            block.transactions.length === 0 ||
            this.options.chain.mempool.size === 0
          )
            return;
        }
      })
        .catch((error: unknown) => this.options.log.error({ err: error }, 'dev mode: mining failed'))
        .finally(() => {
          if (this.run === run) this.run = undefined;
          done();
        });
    });
  }

  /**
   * The next block made without a transaction: at the interval when one is set; else, under automine,
   * when a plugin's end step has work due (a job's window closing), so a job goes on to its end with no
   * transaction to carry it — at most one such block a second.
   */
  private scheduleIdle(): void {
    clearTimeout(this.idleTimer);
    if (!this.running) return;
    const { chain } = this.options;
    let due: number;
    if (this.intervalMs > 0) due = chain.head.timestamp - this.offsetMs + this.intervalMs;
    else {
      const work = this.automine ? chain.nextDue() : undefined;
      if (work === undefined) return;
      due = Math.max(work, chain.head.timestamp + 1000) - this.offsetMs;
    }
    this.idleTimer = setTimeout(
      () => {
        void this.enqueue(() => this.produce())
          .catch((error: unknown) => this.options.log.error({ err: error }, 'dev mode: mining failed'))
          .finally(() => this.scheduleIdle());
      },
      Math.max(0, due - Date.now()),
    );
  }

  /** One block at `at` (ms), or at the next block's time: the one set, else the moved clock, always after the head. */
  private async produce(at?: number): Promise<Block> {
    const { chain, key } = this.options;
    const timestamp = Math.max(at ?? this.nextTimestamp ?? Date.now() + this.offsetMs, chain.head.timestamp + 1);
    if (at === undefined && this.nextTimestamp !== undefined) {
      // Later blocks keep the clock where this one put it.
      this.offsetMs = this.nextTimestamp - Date.now();
      this.nextTimestamp = undefined;
    }
    const block = await chain.produceBlock(key, timestamp, executionBudget(Math.max(this.intervalMs, 1000), 'alone'));
    this.produced++;
    this.scheduleIdle();
    return block;
  }
}
