const NONCE = /^(\d{1,16})\.([A-Za-z0-9_-]{8,64})$/;

export type NonceVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Replay protection: a nonce `<unix-ms>.<random>` is accepted once per principal while its time is
 * within the window of the node's clock. Seen nonces are grouped by the second their time names, so
 * a lookup touches one group and forgetting is dropping whole groups once they leave the window.
 * Memory is capped: when the cap forces out a group still inside the window, nonces of that second
 * and before are refused from then on, so the cap never lets a replay through.
 */
export class NonceLedger {
  /** second of the nonce's time -> principal\0nonce seen. Seconds are added in any order. */
  private readonly bySecond = new Map<number, Set<string>>();
  private count = 0;
  /** Nonces whose second is at or before this are refused (set when the cap dropped a live group). */
  private floorSecond = -1;

  constructor(
    private readonly windowMs: number,
    private readonly capacity: number,
  ) {}

  get size(): number {
    return this.count;
  }

  check(principal: string, nonce: string | undefined, now: number): NonceVerdict {
    if (nonce === undefined || nonce === '') return { ok: false, reason: 'the X-Svc-Nonce header is missing' };
    const match = NONCE.exec(nonce);
    if (!match) return { ok: false, reason: 'X-Svc-Nonce must be <unix-milliseconds>.<8-64 of A-Z a-z 0-9 _ ->' };
    const time = Number(match[1]);
    if (Math.abs(now - time) > this.windowMs)
      return { ok: false, reason: `the nonce's time is more than ${this.windowMs / 1000} s from the node's clock` };
    const second = Math.floor(time / 1000);
    if (second <= this.floorSecond)
      return {
        ok: false,
        reason: 'the nonce is older than the replay window the node can still check; use a fresh one',
      };
    const key = `${principal}\0${nonce}`;
    let group = this.bySecond.get(second);
    if (group?.has(key)) return { ok: false, reason: 'this nonce was already used with this token' };
    if (!group) {
      group = new Set();
      this.bySecond.set(second, group);
      this.forgetExpired(now);
    }
    group.add(key);
    this.count++;
    if (this.count > this.capacity) this.dropOldest();
    return { ok: true };
  }

  /** Groups whose second is past the window can't be presented again (they'd be stale). */
  private forgetExpired(now: number): void {
    const oldest = Math.floor((now - this.windowMs) / 1000) - 1;
    for (const [second, group] of this.bySecond) {
      if (second < oldest) {
        this.bySecond.delete(second);
        this.count -= group.size;
      }
    }
  }

  private dropOldest(): void {
    while (this.count > this.capacity && this.bySecond.size > 0) {
      let oldest = Infinity;
      for (const second of this.bySecond.keys()) if (second < oldest) oldest = second;
      this.count -= this.bySecond.get(oldest)!.size;
      this.bySecond.delete(oldest);
      this.floorSecond = Math.max(this.floorSecond, oldest);
    }
  }
}
