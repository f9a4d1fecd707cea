/**
 * Whether a follower is synced: its head within `window` blocks of the best head its peers announce.
 * Becoming synced is immediate; ceasing to be waits until the node has been behind (or without peers)
 * for `graceMs` straight, so a gossiped block still being imported, or a peer reconnecting, does not
 * make `/health` flap between healthy and syncing.
 */
export class SyncState {
  private peerHead: number | undefined;
  private synced = false;
  private behindSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly head: () => number,
    private readonly changed: (synced: boolean) => void,
    private readonly options: { window: number; graceMs: number; now?: () => number } = { window: 2, graceMs: 2_000 },
  ) {}

  get bestPeerHead(): number | undefined {
    return this.peerHead;
  }

  get isSynced(): boolean {
    return this.synced;
  }

  reportPeerHead(height: number | undefined): void {
    this.peerHead = height;
    this.update();
  }

  /** Re-judges after the head moved or time passed. */
  update(): void {
    const within = this.peerHead !== undefined && this.head() + this.options.window >= this.peerHead;
    if (within) {
      this.behindSince = undefined;
      this.clearTimer();
      return this.set(true);
    }
    if (!this.synced) return;
    const now = this.now();
    this.behindSince ??= now;
    const left = this.behindSince + this.options.graceMs - now;
    if (left <= 0) return this.set(false);
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.update();
      }, left).unref();
    }
  }

  close(): void {
    this.clearTimer();
  }

  private set(synced: boolean): void {
    if (synced === this.synced) return;
    this.synced = synced;
    if (!synced) this.behindSince = undefined;
    this.changed(synced);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
