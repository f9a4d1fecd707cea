/**
 * Votes of one height, counted by voting power: per round and type, who voted for what. A validator's
 * second, different vote for the same round and type is evidence of equivocation; it also counts for
 * the value it names (the algorithm's "2f+1 messages for v" counts senders per value, which stays safe
 * with f faulty ones), never twice for one value and for at most a few values per validator.
 */

export type VoteType = 'prevote' | 'precommit';

/** A vote as the state machine sees it: already authenticated (signature and membership checked). */
export interface Vote {
  readonly type: VoteType;
  readonly height: number;
  readonly round: number;
  /** The id (block hash) voted for, or null for nil. */
  readonly value: string | null;
  readonly validator: string;
}

export interface Equivocation {
  readonly first: Vote;
  readonly second: Vote;
}

class RoundVotes {
  /** Each validator's first vote. */
  readonly byValidator = new Map<string, Vote>();
  /** Validators counted for each value. */
  readonly voters = new Map<string | null, Map<string, Vote>>();
  readonly power = new Map<string | null, bigint>();
  total = 0n;
}

/** Values one equivocating validator is counted for in one round and type, at most. */
const MAX_VALUES_PER_VALIDATOR = 3;

export class VoteSet {
  private readonly rounds = new Map<string, RoundVotes>();
  /** Validators heard from at each round (any vote or a proposal), for the f+1 round skip. */
  private readonly heard = new Map<number, Set<string>>();

  constructor(private readonly powers: ReadonlyMap<string, bigint>) {}

  private votes(round: number, type: VoteType): RoundVotes {
    const key = `${round}/${type}`;
    let votes = this.rounds.get(key);
    if (!votes) this.rounds.set(key, (votes = new RoundVotes()));
    return votes;
  }

  /** Adds a vote: 'added', 'duplicate' (the same again), or the equivocation it is (also counted for its value). Votes of non-members are ignored. */
  add(vote: Vote): 'added' | 'duplicate' | 'unknown' | Equivocation {
    const power = this.powers.get(vote.validator);
    if (power === undefined) return 'unknown';
    const votes = this.votes(vote.round, vote.type);
    const earlier = votes.byValidator.get(vote.validator);
    if (earlier?.value === vote.value) return 'duplicate';
    let voters = votes.voters.get(vote.value);
    if (voters?.has(vote.validator)) return 'duplicate';
    if (earlier && [...votes.voters.values()].filter((m) => m.has(vote.validator)).length >= MAX_VALUES_PER_VALIDATOR)
      return { first: earlier, second: vote };
    if (!voters) votes.voters.set(vote.value, (voters = new Map()));
    voters.set(vote.validator, vote);
    votes.power.set(vote.value, (votes.power.get(vote.value) ?? 0n) + power);
    if (earlier) return { first: earlier, second: vote };
    votes.byValidator.set(vote.validator, vote);
    votes.total += power;
    this.hear(vote.round, vote.validator);
    return 'added';
  }

  /** A proposal counts as hearing from its proposer at that round. */
  hear(round: number, validator: string): void {
    if (!this.powers.has(validator)) return;
    let heard = this.heard.get(round);
    if (!heard) this.heard.set(round, (heard = new Set()));
    heard.add(validator);
  }

  /** Power for `value` (null: nil) at a round and type. */
  powerFor(round: number, type: VoteType, value: string | null): bigint {
    return this.rounds.get(`${round}/${type}`)?.power.get(value) ?? 0n;
  }

  /** Power of every vote of a round and type, whatever it is for. */
  powerOfAny(round: number, type: VoteType): bigint {
    return this.rounds.get(`${round}/${type}`)?.total ?? 0n;
  }

  /** Power of the validators heard from at a round. */
  powerHeard(round: number): bigint {
    let sum = 0n;
    for (const validator of this.heard.get(round) ?? []) sum += this.powers.get(validator)!;
    return sum;
  }

  /** Rounds anything was heard at. */
  roundsHeard(): number[] {
    return [...this.heard.keys()];
  }

  /** The votes for `value` at a round and type: a commit certificate when they are precommits of more than 2/3. */
  votesFor(round: number, type: VoteType, value: string | null): Vote[] {
    return [...(this.rounds.get(`${round}/${type}`)?.voters.get(value)?.values() ?? [])];
  }
}

/** More than 2/3 of the total power. */
export const isQuorum = (power: bigint, total: bigint): boolean => power * 3n > total * 2n;
/** More than 1/3: at least one honest validator among them. */
export const isOneThird = (power: bigint, total: bigint): boolean => power * 3n > total;
