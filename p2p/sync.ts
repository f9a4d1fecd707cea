import { BlockRejectedError } from '../chain/chain.js';
import type { Logger } from '../kernel/log.js';
import type { PeerBook } from './peers.js';
import { MAX_RANGE, type BlockBundle } from './wire.js';

/** Range requests outstanding at once (to one or several peers). */
const IN_FLIGHT = 4;
/** How often progress is logged while syncing. */
const PROGRESS_EVERY_MS = 5_000;
/** Behind by more than this many blocks counts as "far behind": worth a progress line. */
const FAR_BEHIND = 32;

export interface SyncDeps {
  readonly head: () => number;
  readonly peers: PeerBook;
  /** Fetches up to `count` blocks from `from` from a peer (fewer when the peer has fewer). */
  readonly fetch: (peer: string, from: number, count: number) => Promise<BlockBundle[]>;
  /** Imports the next block; resolves false when it is already known (imported by gossip meanwhile). */
  readonly importBlock: (bundle: BlockBundle, peer: string) => Promise<boolean>;
  /** A peer sent an invalid block: refuse it from now on. */
  readonly misbehaved: (peer: string, reason: string) => void;
  /** A peer failed to answer a range: don't ask it again until it announces its head anew. */
  readonly failed: (peer: string, reason: string) => void;
  /** Range sync is held back for now (a state sync runs first): poking does nothing. */
  readonly held?: () => boolean;
  readonly log: Logger;
}

interface Job {
  readonly from: number;
  readonly count: number;
  readonly peer: string;
  readonly result: Promise<BlockBundle[] | Error>;
}

/**
 * Range sync: while the best peer head is above ours, fetch the missing blocks in ranges (several
 * requests in flight, spread over the peers that have them), and import them in order. A peer that
 * sends an invalid block is refused, one that fails to answer is set aside, and the range is asked
 * of another.
 */
export class Syncer {
  private running: Promise<void> | undefined;
  private again = false;
  private start: number | undefined;

  constructor(private readonly deps: SyncDeps) {}

  /** The height this sync run started from, while one runs. */
  get startingBlock(): number | undefined {
    return this.start;
  }

  get active(): boolean {
    return this.running !== undefined;
  }

  /** Starts syncing if a peer is ahead; a call while syncing makes the run look again before it ends. */
  poke(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.deps.held?.()) return;
    const best = this.deps.peers.bestHeight();
    if (best === undefined || best <= this.deps.head()) return;
    this.running = this.run()
      .catch((error: unknown) => this.deps.log.error({ err: error }, 'sync failed'))
      .finally(() => {
        this.running = undefined;
        this.start = undefined;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** Resolves when the current run (if any) ends. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    const { deps } = this;
    this.start = deps.head();
    const began = performance.now();
    let lastReport = began;
    let queue: Job[] = [];
    let next = deps.head() + 1;
    let spread = 0;
    for (;;) {
      const target = deps.peers.bestHeight();
      if (target === undefined) break;
      while (queue.length < IN_FLIGHT && next <= target) {
        const count = Math.min(MAX_RANGE, target - next + 1);
        const candidates = deps.peers.peersWith(next + count - 1);
        if (candidates.length === 0) break;
        const peer = candidates[spread++ % candidates.length]!;
        queue.push({
          from: next,
          count,
          peer,
          result: deps
            .fetch(peer, next, count)
            .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
        });
        next += count;
      }
      const job = queue.shift();
      if (!job) break;
      const bundles = await job.result;
      let restart = false;
      if (bundles instanceof Error) {
        deps.failed(job.peer, `range ${job.from}+${job.count}: ${bundles.message}`);
        restart = true;
      } else if (bundles.length === 0) {
        // A peer that announces a head but serves nothing of it would keep the sync asking forever.
        deps.failed(job.peer, `returned no blocks of range ${job.from}+${job.count}`);
        restart = true;
      } else {
        for (const bundle of bundles) {
          try {
            await deps.importBlock(bundle, job.peer);
          } catch (error) {
            if (!(error instanceof BlockRejectedError)) throw error;
            deps.misbehaved(job.peer, error.message);
            restart = true;
            break;
          }
        }
        // A peer that had fewer blocks than it announced: ask again from where the chain is.
        if (!restart && bundles.length < job.count) restart = true;
      }
      if (restart) {
        queue = [];
        next = deps.head() + 1;
      }
      const now = performance.now();
      if (now - lastReport >= PROGRESS_EVERY_MS) {
        lastReport = now;
        const head = deps.head();
        const behind = (deps.peers.bestHeight() ?? head) - head;
        if (behind > FAR_BEHIND) {
          const rate = (head - this.start) / ((now - began) / 1000);
          deps.log.info(
            {
              head,
              target: head + behind,
              blocksPerSecond: Math.round(rate),
              etaSeconds: rate > 0 ? Math.round(behind / rate) : undefined,
            },
            'syncing',
          );
        }
      }
    }
    const imported = deps.head() - this.start;
    // A state change worth a line at info only after a real sync (a follower fetches a block or two by
    // range all the time: the chain's summary line counts those).
    const caughtUp = imported > FAR_BEHIND || performance.now() - began >= PROGRESS_EVERY_MS;
    if (imported > 0)
      deps.log[caughtUp ? 'info' : 'debug'](
        { head: deps.head(), imported, seconds: Number(((performance.now() - began) / 1000).toFixed(1)) },
        'caught up with peers',
      );
  }
}
