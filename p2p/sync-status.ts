import { SyncState } from './sync-state.js';

/**
 * Whether this node is synced, as the network sees it: the capability (`sync-status`) that readiness,
 * `/health`, `svc_syncing` and plugins that must not act on a stale head (provider registration) read.
 */
export interface SyncStatus {
  /** Within 2 blocks of the best head peers announce (a block producer always is). */
  readonly synced: boolean;
  /** The best head this node's peers announce (undefined while it has none). */
  readonly bestPeerHead: number | undefined;
  /** The highest block this node knows of: its head, or a peer's if higher. */
  readonly highestKnown: number;
}

/** Tracks the best peer head against the chain's head; reports each change of the synced flag. */
export class SyncTracker implements SyncStatus {
  private readonly state: SyncState;

  constructor(
    private readonly head: () => number,
    /** This node produces blocks: it is where the chain's head is made, so it is synced. */
    private readonly producer: boolean,
    changed: (status: { synced: boolean; currentBlock: number; highestBlock: number }) => void,
  ) {
    this.state = new SyncState(head, (synced) =>
      changed({ synced, currentBlock: head(), highestBlock: this.highestKnown }),
    );
  }

  get synced(): boolean {
    return this.producer || this.state.isSynced;
  }

  get bestPeerHead(): number | undefined {
    return this.state.bestPeerHead;
  }

  get highestKnown(): number {
    return Math.max(this.head(), this.state.bestPeerHead ?? 0);
  }

  get isProducer(): boolean {
    return this.producer;
  }

  reportBestPeerHead(height: number | undefined): void {
    this.state.reportPeerHead(height);
  }

  /** Re-judges after the head moved. */
  headMoved(): void {
    this.state.update();
  }

  close(): void {
    this.state.close();
  }
}
