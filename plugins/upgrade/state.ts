import { decode, encode } from '../../sdk/encoding.js';

/**
 * Upgrade plans as consensus state, under `upgrade/`:
 * - `upgrade/pending` -> CBOR PlanRecord: the plan validators are approving (at most one)
 * - `upgrade/adopted` -> CBOR AdoptedPlan: the last plan adopted
 * - `upgrade/nextId` -> CBOR uint: the id the next plan gets (from 1)
 * The schedule an adopted plan extends is the chain's (`chain/rulesSchedule`, chain/rules-schedule.ts).
 */
export interface PlanRecord {
  readonly planId: number;
  readonly name: string;
  readonly version: number;
  /** The first block that runs `version`. */
  readonly height: number;
  readonly proposer: string;
  readonly proposedAt: number;
  /** Operators of validators that approved it, the proposer first. */
  readonly approvals: readonly string[];
}

export interface AdoptedPlan extends PlanRecord {
  readonly adoptedAt: number;
  /** The power of its approvals and of the whole set when it was adopted (OGT base units, decimal). */
  readonly approvedStake: string;
  readonly bondedStake: string;
}

export const PENDING_KEY = 'upgrade/pending';
export const ADOPTED_KEY = 'upgrade/adopted';
export const NEXT_ID_KEY = 'upgrade/nextId';

type Read = (key: string) => Uint8Array | undefined;

export const readPending = (read: Read): PlanRecord | undefined => {
  const raw = read(PENDING_KEY);
  return raw ? decode<PlanRecord>(raw) : undefined;
};

export const readAdopted = (read: Read): AdoptedPlan | undefined => {
  const raw = read(ADOPTED_KEY);
  return raw ? decode<AdoptedPlan>(raw) : undefined;
};

export const readNextId = (read: Read): number => {
  const raw = read(NEXT_ID_KEY);
  return raw ? decode<number>(raw) : 1;
};

export const encodePlan = (plan: PlanRecord | AdoptedPlan): Uint8Array => encode(plan);
