// A discrete-event simulation of validators running consensus/tendermint.ts over a network with
// seeded random delays, crashes, pauses and byzantine peers: simulated time, no real timers.
import {
  Tendermint,
  type ConsensusHost,
  type Proposal,
  type Step,
  type TimeoutMove,
} from '../../consensus/tendermint.js';
import type { Equivocation, Vote } from '../../consensus/vote-set.js';
import { nextSet, proposerAfter } from '../../consensus/validator-set.js';

/** Mulberry32: a small seeded PRNG, so a failing seed replays exactly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Message =
  | { kind: 'proposal'; proposal: Proposal }
  | { kind: 'vote'; vote: Vote }
  | { kind: 'commit'; height: number; round: number; value: string; commit: Vote[] };

export interface Byzantine {
  /** Replaces what an honest validator would send with what this one sends to each peer. */
  proposal?(proposal: Proposal, to: string): Proposal | undefined;
  vote?(vote: Vote, to: string): Vote | undefined;
}

export interface SimulationOptions {
  readonly validators: ReadonlyArray<{ name: string; power: bigint }>;
  readonly seed: number;
  readonly maxDelayMs?: number;
  readonly byzantine?: Record<string, Byzantine>;
  /** Values a validator judges invalid. */
  readonly invalid?: (value: string) => boolean;
  /** A delay (ms) that replaces the random one for a message to a node (a partition, a slow link), or undefined. */
  readonly delay?: (to: string, message: Message) => number | undefined;
}

interface Node {
  readonly name: string;
  readonly machine: Tendermint;
  down: boolean;
  /** Messages held while paused, delivered on resume. */
  held: Message[];
  paused: boolean;
}

export class Simulation {
  now = 0;
  private readonly queue: Array<{ at: number; seq: number; run: () => void }> = [];
  private seq = 0;
  readonly random: () => number;
  readonly nodes = new Map<string, Node>();
  /** Decisions: height -> node -> value. */
  readonly decisions = new Map<number, Map<string, string>>();
  readonly commits: Array<{ node: string; height: number; round: number; value: string; commit: Vote[] }> = [];
  readonly evidence: Equivocation[] = [];
  readonly maxRound = { value: 0 };
  /** Every timeout that moved a validator on, and what it did. */
  readonly timeoutMoves: Array<{ node: string; step: Step; height: number; round: number; moved: TimeoutMove }> = [];
  private readonly powers: ReadonlyMap<string, bigint>;
  private readonly set;

  constructor(private readonly options: SimulationOptions) {
    this.random = prng(options.seed);
    this.powers = new Map(options.validators.map((v) => [v.name, v.power]));
    this.set = nextSet(
      [],
      options.validators.map((v) => ({ operator: v.name, consensusKey: v.name, power: v.power })),
    );
    for (const { name } of options.validators) {
      const host: ConsensusHost = {
        self: name,
        powers: () => this.powers,
        proposer: (height, round) => this.proposer(height, round),
        propose: (height, round, validValue, validRound) =>
          this.broadcast(name, {
            kind: 'proposal',
            proposal: {
              height,
              round,
              value: validValue ?? `block ${height}/${round} by ${name}`,
              validRound: validValue === null ? -1 : validRound,
              proposer: name,
            },
          }),
        broadcastVote: (vote) => this.broadcast(name, { kind: 'vote', vote }),
        schedule: (step, height, round, ms) => this.at(this.now + ms, () => this.timeout(name, step, height, round)),
        decide: (height, round, value, commit) => this.decided(name, height, round, value, commit),
        equivocation: (evidence) => this.evidence.push(evidence),
      };
      this.nodes.set(name, {
        name,
        machine: new Tendermint(host, {
          propose: { base: 300, delta: 100 },
          prevote: { base: 100, delta: 50 },
          precommit: { base: 100, delta: 50 },
        }),
        down: false,
        held: [],
        paused: false,
      });
    }
  }

  proposer(height: number, round: number): string {
    return proposerAfter(this.set, height + round).proposer.operator;
  }

  private before(i: number, j: number): boolean {
    const a = this.queue[i]!;
    const b = this.queue[j]!;
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    [this.queue[i], this.queue[j]] = [this.queue[j]!, this.queue[i]!];
  }

  /** Into the event heap (earliest first; equal times in the order scheduled). */
  private at(at: number, run: () => void): void {
    this.queue.push({ at, seq: this.seq++, run });
    for (let i = this.queue.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private pop(): { at: number; run: () => void } {
    const top = this.queue[0]!;
    const last = this.queue.pop()!;
    if (this.queue.length > 0) {
      this.queue[0] = last;
      for (let i = 0; ; ) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let m = i;
        if (l < this.queue.length && this.before(l, m)) m = l;
        if (r < this.queue.length && this.before(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }

  private timeout(name: string, step: Step, height: number, round: number): void {
    const node = this.nodes.get(name)!;
    if (node.down || node.paused) return;
    const moved = node.machine.onTimeout(step, height, round);
    if (moved) this.timeoutMoves.push({ node: name, step, height, round, moved });
  }

  private delayTo(to: string, message: Message): number {
    const random = 1 + Math.floor(this.random() * (this.options.maxDelayMs ?? 50));
    return this.options.delay?.(to, message) ?? random;
  }

  private broadcast(from: string, message: Message): void {
    if (message.kind === 'vote') this.maxRound.value = Math.max(this.maxRound.value, message.vote.round);
    const byzantine = this.options.byzantine?.[from];
    for (const to of this.nodes.keys()) {
      let sent: Message | undefined = message;
      if (byzantine && message.kind === 'proposal' && byzantine.proposal)
        sent = (() => {
          const p = byzantine.proposal!(message.proposal, to);
          return p ? { kind: 'proposal' as const, proposal: p } : undefined;
        })();
      if (byzantine && message.kind === 'vote' && byzantine.vote)
        sent = (() => {
          const v = byzantine.vote!(message.vote, to);
          return v ? { kind: 'vote' as const, vote: v } : undefined;
        })();
      if (!sent) continue;
      const delay = to === from ? 0 : this.delayTo(to, sent);
      const deliver = sent;
      this.at(this.now + delay, () => this.deliver(to, deliver));
    }
  }

  /** Messages each node has seen (it relays each once, as gossip does). */
  private readonly seen = new Map<string, Set<string>>();

  private deliver(to: string, message: Message): void {
    const node = this.nodes.get(to)!;
    if (node.down) return;
    if (node.paused) return void node.held.push(message);
    const id =
      message.kind === 'vote'
        ? `v/${message.vote.type}/${message.vote.height}/${message.vote.round}/${message.vote.value}/${message.vote.validator}`
        : message.kind === 'proposal'
          ? `p/${message.proposal.height}/${message.proposal.round}/${message.proposal.value}`
          : `c/${message.height}/${message.round}/${message.value}`;
    let seen = this.seen.get(to);
    if (!seen) this.seen.set(to, (seen = new Set()));
    if (seen.has(id)) return;
    seen.add(id);
    // Gossip: what a node receives it passes on (a byzantine node too: it cannot change others' signed messages).
    for (const peer of this.nodes.keys())
      if (peer !== to) this.at(this.now + this.delayTo(peer, message), () => this.deliver(peer, message));
    if (message.kind === 'proposal')
      node.machine.onProposal(message.proposal, !(this.options.invalid?.(message.proposal.value) ?? false));
    else if (message.kind === 'vote') node.machine.onVote(message.vote);
    else node.machine.onCommit(message.height, message.round, message.value, message.commit);
  }

  private decided(name: string, height: number, round: number, value: string, commit: Vote[]): void {
    let byNode = this.decisions.get(height);
    if (!byNode) this.decisions.set(height, (byNode = new Map()));
    byNode.set(name, value);
    this.commits.push({ node: name, height, round, value, commit });
    // What block sync gives a validator left behind: the decided block with its commit certificate.
    if (!this.nodes.get(name)!.down) this.broadcast(name, { kind: 'commit', height, round, value, commit });
    // The next height after a short commit wait, as a node does after writing the block.
    this.at(this.now + 10, () => {
      const node = this.nodes.get(name)!;
      if (!node.down) node.machine.startHeight(height + 1);
    });
  }

  start(): void {
    for (const node of this.nodes.values()) node.machine.startHeight(1);
  }

  crash(name: string): void {
    this.nodes.get(name)!.down = true;
  }

  pause(name: string): void {
    this.nodes.get(name)!.paused = true;
  }

  resume(name: string): void {
    const node = this.nodes.get(name)!;
    node.paused = false;
    for (const message of node.held.splice(0)) this.deliver(name, message);
  }

  /** Runs simulated time forward until `until` ms or `done` holds. */
  run(until: number, done: () => boolean = () => false): void {
    while (this.queue.length > 0 && !done()) {
      if (this.queue[0]!.at > until) break;
      const event = this.pop();
      this.now = event.at;
      event.run();
    }
    this.now = Math.max(this.now, until);
  }

  /** The highest height every live node has decided. */
  decidedByAll(names: readonly string[] = [...this.nodes.keys()].filter((n) => !this.nodes.get(n)!.down)): number {
    let height = 0;
    while (names.every((name) => this.decisions.get(height + 1)?.has(name))) height++;
    return height;
  }

  /** Heights where two nodes decided differently. */
  disagreements(): number[] {
    return [...this.decisions].filter(([, byNode]) => new Set(byNode.values()).size > 1).map(([height]) => height);
  }

  totalPower(): bigint {
    return [...this.powers.values()].reduce((a, b) => a + b, 0n);
  }

  powerOf(name: string): bigint {
    return this.powers.get(name)!;
  }
}
