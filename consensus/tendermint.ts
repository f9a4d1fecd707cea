/**
 * Tendermint's consensus for one validator: Algorithm 1 of Buchman, Kwon and Milosevic, "The latest
 * gossip on BFT consensus" (2018), the algorithm CometBFT runs. Rounds of propose, prevote and
 * precommit; a value is decided once precommits of more than 2/3 of the power are for it; a validator
 * locks on a value it precommitted and prevotes for another only on proof (prevotes of more than 2/3
 * in a later round); a round is skipped when more than 1/3 of the power is seen in a later one;
 * timeouts grow with the round.
 *
 * It is a pure state machine: the driver feeds it authenticated proposals and votes (with whether a
 * proposed value is valid: the block executes and gives its header's roots) and timeouts, and carries
 * out what it asks through the callbacks — sign and broadcast, schedule a timeout, commit. Line
 * numbers in comments are the paper's.
 */
import { isOneThird, isQuorum, VoteSet, type Equivocation, type Vote, type VoteType } from './vote-set.js';

export type Step = 'propose' | 'prevote' | 'precommit';

/** What a timeout that fired in time did: a nil vote, or the round given up for the next. */
export type TimeoutMove = 'prevoted nil' | 'precommitted nil' | 'next round';

export interface Proposal {
  readonly height: number;
  readonly round: number;
  /** The value's id (the block hash). */
  readonly value: string;
  /** The round in which the proposer saw the value get prevotes of more than 2/3, or -1. */
  readonly validRound: number;
  readonly proposer: string;
}

export interface Timeouts {
  /** Base and per-round increase, ms: timeouts grow so a round eventually lasts long enough. */
  readonly propose: { base: number; delta: number };
  readonly prevote: { base: number; delta: number };
  readonly precommit: { base: number; delta: number };
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  propose: { base: 3000, delta: 500 },
  prevote: { base: 1000, delta: 500 },
  precommit: { base: 1000, delta: 500 },
};

export interface ConsensusHost {
  /** This validator's address, or undefined for a node that only follows. */
  readonly self: string | undefined;
  /** Voting power of each validator at a height. */
  powers(height: number): ReadonlyMap<string, bigint>;
  /** The proposer of a height and round. */
  proposer(height: number, round: number): string;
  /**
   * This validator proposes: the value carried from an earlier round (`validValue`, with its
   * `validRound`), or a new one it makes (a block it builds) when that is null. The host signs and
   * broadcasts the proposal and gives it back through `onProposal`, when ready (building may take time).
   */
  propose(height: number, round: number, validValue: string | null, validRound: number): void;
  /** Signs and broadcasts this validator's vote, and gives it back through `onVote` (the host persists what it signs first). */
  broadcastVote(vote: Vote): void;
  schedule(step: Step, height: number, round: number, ms: number): void;
  /** A decision: the value and the precommits of more than 2/3 that make its commit certificate. */
  decide(height: number, round: number, value: string, commit: Vote[]): void;
  /** Two votes of one validator that conflict. */
  equivocation?(evidence: Equivocation): void;
}

export interface RoundState {
  readonly height: number;
  readonly round: number;
  readonly step: Step;
  readonly lockedValue: string | null;
  readonly lockedRound: number;
  readonly validValue: string | null;
  readonly validRound: number;
  /** This height is decided here: what is left of it is the commit. */
  readonly decided: boolean;
}

/** Proposals kept per round: more than one only from an equivocating proposer. */
const MAX_PROPOSALS_PER_ROUND = 4;
/** Messages of later heights kept until this validator gets there. */
const MAX_EARLY_MESSAGES = 10_000;

export class Tendermint {
  private height = 0;
  private round = 0;
  private step: Step = 'propose';
  private lockedValue: string | null = null;
  private lockedRound = -1;
  private validValue: string | null = null;
  private validRound = -1;
  private decided = false;
  private votes!: VoteSet;
  private powers!: ReadonlyMap<string, bigint>;
  private total = 0n;
  /** Proposals of this height by round (from the round's proposer only; an equivocating one may send several), with their validity. */
  private proposals = new Map<number, Array<{ proposal: Proposal; valid: boolean }>>();
  /** "For the first time" rules already taken, by rule and round. */
  private fired = new Set<string>();
  /**
   * Messages of the next heights that came before this validator got there (faster peers move on as
   * soon as they commit): replayed when it starts that height. Bounded.
   */
  private early: Array<{ proposal: Proposal; valid: boolean } | Vote> = [];

  constructor(
    private readonly host: ConsensusHost,
    private readonly timeouts: Timeouts = DEFAULT_TIMEOUTS,
  ) {}

  /** Power of the prevotes and precommits seen at a round of this height (whatever they are for), and the total. */
  votesAt(round: number): { prevotes: bigint; precommits: bigint; total: bigint } {
    return {
      prevotes: this.votes.powerOfAny(round, 'prevote'),
      precommits: this.votes.powerOfAny(round, 'precommit'),
      total: this.total,
    };
  }

  /**
   * The prevotes of more than 2/3 for `value` at `round` of this height, when this validator has them:
   * the proof a proposal of a carried value travels with. A validator that was down when they were
   * sent (or restarted since) cannot vote for a value proposed again from an earlier round without
   * them, and peers send again only the messages of their current round.
   */
  polka(round: number, value: string): Vote[] {
    const votes = this.votes.votesFor(round, 'prevote', value);
    return isQuorum(this.votes.powerFor(round, 'prevote', value), this.total) ? votes : [];
  }

  state(): RoundState {
    return {
      height: this.height,
      round: this.round,
      step: this.step,
      lockedValue: this.lockedValue,
      lockedRound: this.lockedRound,
      validValue: this.validValue,
      validRound: this.validRound,
      decided: this.decided,
    };
  }

  /**
   * Starts a height at round 0; a restarted validator passes the lock it persisted, and the step it
   * last signed in that round (it proposes or votes there no more: its signing state would refuse).
   */
  startHeight(
    height: number,
    restored?: Pick<RoundState, 'round' | 'lockedValue' | 'lockedRound' | 'validValue' | 'validRound'> & {
      readonly signed?: 'proposal' | 'prevote' | 'precommit';
    },
  ): void {
    this.height = height;
    this.powers = this.host.powers(height);
    this.total = [...this.powers.values()].reduce((a, b) => a + b, 0n);
    this.votes = new VoteSet(this.powers);
    this.proposals = new Map();
    this.fired = new Set();
    this.decided = false;
    this.lockedValue = restored?.lockedValue ?? null;
    this.lockedRound = restored?.lockedRound ?? -1;
    this.validValue = restored?.validValue ?? null;
    this.validRound = restored?.validRound ?? -1;
    this.startRound(restored?.round ?? 0, restored?.signed);
    const early = this.early.filter((m) => ('proposal' in m ? m.proposal.height : m.height) === height);
    this.early = this.early.filter((m) => ('proposal' in m ? m.proposal.height : m.height) > height);
    for (const message of early) {
      if ('proposal' in message) this.onProposal(message.proposal, message.valid);
      else this.onVote(message);
    }
  }

  /** Keeps a message of a height this validator has not reached yet (within the next two). */
  private keepEarly(message: { proposal: Proposal; valid: boolean } | Vote, height: number): void {
    if (height > this.height && height <= this.height + 2 && this.early.length < MAX_EARLY_MESSAGES)
      this.early.push(message);
  }

  private timeout(step: Step, round: number): number {
    const t = this.timeouts[step];
    return t.base + t.delta * round;
  }

  /** Line 11; a restarted validator resumes after the step it signed last in this round. */
  private startRound(round: number, signed?: 'proposal' | 'prevote' | 'precommit'): void {
    this.round = round;
    this.step = signed === 'prevote' || signed === 'precommit' ? signed : 'propose';
    if (this.step === 'propose') {
      // The proposer's own proposal comes back through onProposal; the timeout covers it failing to.
      this.host.schedule('propose', this.height, round, this.timeout('propose', round));
      if (
        signed === undefined &&
        this.host.self !== undefined &&
        this.host.proposer(this.height, round) === this.host.self
      )
        this.host.propose(this.height, round, this.validValue, this.validRound);
    }
    this.evaluate();
  }

  /** A proposal from anyone: kept only when it comes from the round's proposer. `valid`: the value executes to its header. */
  onProposal(proposal: Proposal, valid: boolean): void {
    if (proposal.height !== this.height) return this.keepEarly({ proposal, valid }, proposal.height);
    if (this.decided) return;
    if (proposal.proposer !== this.host.proposer(proposal.height, proposal.round)) return;
    const ofRound = this.proposals.get(proposal.round) ?? [];
    if (ofRound.some((p) => p.proposal.value === proposal.value) || ofRound.length >= MAX_PROPOSALS_PER_ROUND) return;
    this.proposals.set(proposal.round, [...ofRound, { proposal, valid }]);
    this.votes.hear(proposal.round, proposal.proposer);
    this.evaluate();
  }

  onVote(vote: Vote): void {
    if (vote.height !== this.height) return this.keepEarly(vote, vote.height);
    if (this.decided) return;
    const added = this.votes.add(vote);
    if (typeof added === 'object') this.host.equivocation?.(added);
    if (added !== 'duplicate' && added !== 'unknown') this.evaluate();
  }

  /**
   * A commit certificate for this height from a peer that decided (catch-up, when this validator
   * missed the proposal or the votes): decides when the precommits are of more than 2/3 of the power,
   * one per validator, for the value. The driver has the value and checked it before calling.
   */
  onCommit(height: number, round: number, value: string, commit: readonly Vote[]): boolean {
    if (height !== this.height || this.decided) return false;
    const signers = new Map<string, Vote>();
    for (const vote of commit) {
      if (
        vote.type !== 'precommit' ||
        vote.height !== height ||
        vote.round !== round ||
        vote.value !== value ||
        !this.powers.has(vote.validator)
      )
        continue;
      signers.set(vote.validator, vote);
    }
    const power = [...signers.keys()].reduce((sum, validator) => sum + this.powers.get(validator)!, 0n);
    if (!isQuorum(power, this.total)) return false;
    this.decided = true;
    this.host.decide(height, round, value, [...signers.values()]);
    return true;
  }

  /** Lines 57, 61, 65: what the timeout moved, undefined when the round had moved past it already. */
  onTimeout(step: Step, height: number, round: number): TimeoutMove | undefined {
    if (height !== this.height || round !== this.round || this.decided) return undefined;
    if (step === 'propose' && this.step === 'propose') {
      this.vote('prevote', null);
      this.step = 'prevote';
      this.evaluate();
      return 'prevoted nil';
    }
    if (step === 'prevote' && this.step === 'prevote') {
      this.vote('precommit', null);
      this.step = 'precommit';
      this.evaluate();
      return 'precommitted nil';
    }
    if (step === 'precommit') {
      this.startRound(this.round + 1);
      return 'next round';
    }
    return undefined;
  }

  private vote(type: VoteType, value: string | null): void {
    if (this.host.self === undefined || !this.powers.has(this.host.self)) return;
    this.host.broadcastVote({ type, height: this.height, round: this.round, value, validator: this.host.self });
  }

  private once(rule: string, round: number): boolean {
    const key = `${rule}/${round}`;
    if (this.fired.has(key)) return false;
    this.fired.add(key);
    return true;
  }

  private quorum(round: number, type: VoteType, value: string | null): boolean {
    return isQuorum(this.votes.powerFor(round, type, value), this.total);
  }

  /** Runs every rule whose condition holds until none does (each may enable another). */
  private evaluate(): void {
    for (let guard = 0; guard < 64 && !this.decided; guard++) if (!this.applyOne()) return;
  }

  private applyOne(): boolean {
    const r = this.round;
    const current = this.proposals.get(r) ?? [];
    // Line 49: a decision, in any round.
    for (const [round, proposals] of this.proposals) {
      for (const { proposal, valid } of proposals) {
        if (valid && this.quorum(round, 'precommit', proposal.value)) {
          this.decided = true;
          this.host.decide(this.height, round, proposal.value, this.votes.votesFor(round, 'precommit', proposal.value));
          return false;
        }
      }
    }
    // Line 55: more than 1/3 of the power is at a later round: go there.
    const later = this.votes
      .roundsHeard()
      .filter((round) => round > r && isOneThird(this.votes.powerHeard(round), this.total));
    if (later.length > 0) {
      this.startRound(Math.min(...later));
      return true;
    }
    if (this.step === 'propose') {
      for (const { proposal, valid } of current) {
        if (proposal.validRound === -1) {
          // Line 22.
          this.vote(
            'prevote',
            valid && (this.lockedRound === -1 || this.lockedValue === proposal.value) ? proposal.value : null,
          );
          this.step = 'prevote';
          return true;
        }
        if (
          proposal.validRound >= 0 &&
          proposal.validRound < r &&
          this.quorum(proposal.validRound, 'prevote', proposal.value)
        ) {
          // Line 28.
          this.vote(
            'prevote',
            valid && (this.lockedRound <= proposal.validRound || this.lockedValue === proposal.value)
              ? proposal.value
              : null,
          );
          this.step = 'prevote';
          return true;
        }
      }
    }
    // Line 34.
    if (this.step === 'prevote' && isQuorum(this.votes.powerOfAny(r, 'prevote'), this.total) && this.once('34', r)) {
      this.host.schedule('prevote', this.height, r, this.timeout('prevote', r));
    }
    // Line 36.
    const polka = current.find(({ proposal, valid }) => valid && this.quorum(r, 'prevote', proposal.value));
    if (polka && this.step !== 'propose' && this.once('36', r)) {
      const value = polka.proposal.value;
      if (this.step === 'prevote') {
        this.lockedValue = value;
        this.lockedRound = r;
        this.vote('precommit', value);
        this.step = 'precommit';
      }
      this.validValue = value;
      this.validRound = r;
      return true;
    }
    // Line 44.
    if (this.step === 'prevote' && this.quorum(r, 'prevote', null)) {
      this.vote('precommit', null);
      this.step = 'precommit';
      return true;
    }
    // Line 47.
    if (isQuorum(this.votes.powerOfAny(r, 'precommit'), this.total) && this.once('47', r)) {
      this.host.schedule('precommit', this.height, r, this.timeout('precommit', r));
    }
    return false;
  }
}
