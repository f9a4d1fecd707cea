const NONCE = /^(\d{1,16})\.([A-Za-z0-9_-]{8,64})$/;

export type NonceVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Replay protection: a nonce `<unix-ms>.<random>` is accepted once per principal while its time is
 * within the window of the node's clock. Remembered nonces are forgotten once their time leaves the
 * window (they would be refused as stale anyway). Memory is capped: when the cap forces out a
 * nonce still inside the window, nonces at or before its time are refused from then on, so the cap
 * never lets a replay through.
 */
export class NonceLedger {
  /** principal\0nonce -> time the nonce expires (insertion order ≈ arrival order). */
  private readonly seen = new Map<string, number>();
  private floor = 0;

  constructor(
    private readonly windowMs: number,
    private readonly capacity: number,
  ) {}

  get size(): number {
    return this.seen.size;
  }

  check(principal: string, nonce: string | undefined, now: number): NonceVerdict {
    if (nonce === undefined || nonce === '') return { ok: false, reason: 'the X-Svc-Nonce header is missing' };
    const match = NONCE.exec(nonce);
    if (!match) return { ok: false, reason: 'X-Svc-Nonce must be <unix-milliseconds>.<8-64 of A-Z a-z 0-9 _ ->' };
    const time = Number(match[1]);
    if (Math.abs(now - time) > this.windowMs) return { ok: false, reason: `the nonce's time is more than ${this.windowMs / 1000} s from the node's clock` };
    if (time <= this.floor) return { ok: false, reason: 'the nonce is older than the replay window the node can still check; use a fresh one' };
    const key = `${principal}\0${nonce}`;
    this.prune(now);
    if (this.seen.has(key)) return { ok: false, reason: 'this nonce was already used with this token' };
    this.seen.set(key, time + this.windowMs);
    while (this.seen.size > this.capacity) {
      const [oldest, expires] = this.seen.entries().next().value as [string, number];
      this.seen.delete(oldest);
      if (expires > now) this.floor = Math.max(this.floor, expires - this.windowMs);
    }
    return { ok: true };
  }

  /** Forgets expired nonces from the front (the oldest arrivals). */
  private prune(now: number): void {
    for (const [key, expires] of this.seen) {
      if (expires > now) break;
      this.seen.delete(key);
    }
  }
}
