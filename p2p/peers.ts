/** How long a misbehaving peer stays refused. */
export const BAN_MS = 10 * 60_000;
/** Most refused peers remembered; past it the oldest refusals are forgotten first. */
const MAX_BANNED = 10_000;

export interface PeerHead {
  readonly height: number;
  readonly hash: string;
}

/**
 * What this node knows of its peers: the head each one announced, and which ones it refuses: those
 * banned until a time (another network, or a sender of invalid blocks), and those the operator
 * denies until told otherwise.
 */
export class PeerBook {
  private readonly heads = new Map<string, PeerHead>();
  private readonly banned = new Map<string, { until: number; reason: string }>();
  private denied = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  setHead(peer: string, head: PeerHead): void {
    const known = this.heads.get(peer);
    if (!known || head.height >= known.height) this.heads.set(peer, head);
  }

  head(peer: string): PeerHead | undefined {
    return this.heads.get(peer);
  }

  forget(peer: string): void {
    this.heads.delete(peer);
  }

  /** The highest head any peer announced, or undefined with no peers. */
  bestHeight(): number | undefined {
    let best: number | undefined;
    for (const { height } of this.heads.values()) if (best === undefined || height > best) best = height;
    return best;
  }

  /** Peers whose head reaches `height`, best first. */
  peersWith(height: number): string[] {
    return [...this.heads]
      .filter(([, head]) => head.height >= height)
      .sort((a, b) => b[1].height - a[1].height)
      .map(([peer]) => peer);
  }

  ban(peer: string, reason: string): void {
    this.banned.delete(peer);
    if (this.banned.size >= MAX_BANNED) this.banned.delete(this.banned.keys().next().value!);
    this.banned.set(peer, { until: this.now() + BAN_MS, reason });
    this.heads.delete(peer);
  }

  /** Replaces the denied peers; returns those newly denied. */
  deny(peers: Iterable<string>): string[] {
    const next = new Set(peers);
    const added = [...next].filter((peer) => !this.denied.has(peer));
    this.denied = next;
    for (const peer of added) this.heads.delete(peer);
    return added;
  }

  get deniedPeers(): string[] {
    return [...this.denied];
  }

  /** Whether this node talks to the peer: not while it is banned or denied. */
  refuses(peer: string): boolean {
    return this.denied.has(peer) || this.isBanned(peer);
  }

  isBanned(peer: string): boolean {
    const ban = this.banned.get(peer);
    if (!ban) return false;
    if (ban.until > this.now()) return true;
    this.banned.delete(peer);
    return false;
  }
}
