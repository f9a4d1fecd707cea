import type { PerturbationKind } from './manifest.js';

export type OperationKind =
  | 'transfer'
  | 'badNonce'
  | 'insufficientFunds'
  | 'faucet'
  | 'duplicate'
  | 'job'
  | 'deal'
  | 'contract'
  | 'registration'
  | 'unjail'
  | 'setup'
  | 'filler';

/**
 * One request that could put a transaction on chain, as the runner saw it: which node, what it
 * answered. `acknowledged`: the node admitted it (its hash is known); `refused`: it said why not;
 * `unanswered`: no answer (the node was down, paused or too slow) — it may or may not have it.
 */
export interface Submission {
  readonly operation: OperationKind;
  readonly node: string;
  readonly sentAt: number;
  answeredAt?: number;
  /** The transaction's hash: known before sending when the runner signs, else from the answer. */
  hash?: string;
  readonly from?: string;
  readonly nonce?: number;
  /** A faucet request's address. */
  readonly to?: string;
  outcome: 'acknowledged' | 'refused' | 'unanswered';
  /** The error's name for a refusal, or what went wrong for no answer. */
  error?: string;
}

/** Something done to the testnet: a node stopped, paused or cut off from others, from `at` to `until`. */
export interface Disruption {
  readonly kind: PerturbationKind;
  readonly node: string;
  readonly at: number;
  until?: number;
  /** A cut: the nodes on this node's side, and those on the other. */
  side?: string[];
  away?: string[];
}

/** A finalized block a node reported while the run went on. */
export interface FinalizedSighting {
  readonly node: string;
  readonly at: number;
  readonly height: number;
  readonly hash: string;
}

/** Everything the checks judge besides the chain itself. */
export class History {
  readonly submissions: Submission[] = [];
  readonly disruptions: Disruption[] = [];
  readonly sightings: FinalizedSighting[] = [];

  submit(entry: Omit<Submission, 'sentAt' | 'outcome'>): Submission {
    const submission: Submission = { ...entry, sentAt: Date.now(), outcome: 'unanswered' };
    this.submissions.push(submission);
    return submission;
  }

  acknowledged(submission: Submission, hash: string): void {
    submission.answeredAt = Date.now();
    submission.outcome = 'acknowledged';
    submission.hash = hash;
  }

  refused(submission: Submission, error: string): void {
    submission.answeredAt = Date.now();
    submission.outcome = 'refused';
    submission.error = error;
  }

  unanswered(submission: Submission, error: string): void {
    submission.answeredAt = Date.now();
    submission.outcome = 'unanswered';
    submission.error = error;
  }

  disrupted(disruption: Disruption): Disruption {
    this.disruptions.push(disruption);
    return disruption;
  }

  /** Counts by operation and outcome, for the summary. */
  tally(): Record<string, Record<string, number>> {
    const counts: Record<string, Record<string, number>> = {};
    for (const s of this.submissions) {
      const row = (counts[s.operation] ??= {});
      row[s.outcome] = (row[s.outcome] ?? 0) + 1;
    }
    return counts;
  }
}
