export interface RateLimitSettings {
  /** Requests (calls) per window; 0 disables. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Extra calls allowed per window beyond `limit`. */
  readonly burst: number;
  /** Most keys remembered; the least recently seen go first. */
  readonly maxKeys: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly headers: Record<string, string>;
  readonly retryAfterSeconds: number;
}

interface Usage {
  windowStart: number;
  used: number;
  /** When the entry last moved to the young end of the LRU (in `take` calls). */
  touched: number;
}

/**
 * Fixed-window limits per key: `limit` calls per window plus `burst` more; a request of n calls
 * (a batch counts each call) is served whole or refused whole, and refusals use nothing up. Keys live
 * in an LRU of at most `maxKeys`.
 */
export class RateLimiter {
  private readonly usage = new Map<string, Usage>();
  private readonly windowMs: number;
  private readonly limitText: string;
  private resetFor = -1;
  private ticks = 0;
  private resetText = '';

  constructor(private readonly settings: RateLimitSettings) {
    this.windowMs = settings.windowSeconds * 1000;
    this.limitText = String(settings.limit);
  }

  get keys(): number {
    return this.usage.size;
  }

  take(key: string, calls: number, now: number): RateDecision {
    const { limit, burst, maxKeys } = this.settings;
    const windowStart = Math.floor(now / this.windowMs) * this.windowMs;
    const tick = ++this.ticks;
    let usage = this.usage.get(key);
    if (!usage) {
      usage = { windowStart, used: 0, touched: tick };
      this.usage.set(key, usage);
      if (this.usage.size > maxKeys) this.usage.delete(this.usage.keys().next().value!);
    } else if (tick - usage.touched > maxKeys / 4) {
      // Moving a busy key to the young end on every call costs more than the check itself; a key
      // is refreshed once it has aged a quarter of the LRU, which still keeps active keys in it.
      this.usage.delete(key);
      this.usage.set(key, usage);
      usage.touched = tick;
    }
    if (usage.windowStart !== windowStart) {
      usage.windowStart = windowStart;
      usage.used = 0;
    }
    const allowed = usage.used + calls <= limit + burst;
    if (allowed) usage.used += calls;
    const reset = windowStart + this.windowMs;
    if (this.resetFor !== reset) {
      this.resetFor = reset;
      this.resetText = String(Math.ceil(reset / 1000));
    }
    const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((reset - now) / 1000));
    return {
      allowed,
      retryAfterSeconds,
      headers: {
        'X-RateLimit-Limit': this.limitText,
        'X-RateLimit-Remaining': String(Math.max(0, limit - usage.used)),
        'X-RateLimit-Reset': this.resetText,
        'X-Svc-Burst-Remaining': String(Math.max(0, Math.min(burst, limit + burst - usage.used))),
      },
    };
  }
}
