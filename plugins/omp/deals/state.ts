import { decode, encode } from '../../../sdk/encoding.js';
import type { Deadline } from '../../../chain/deadline.js';
import {
  addToNumber,
  readNumber,
  secondSchedule,
  withoutUndefined,
  type ReadState,
  type WriteState,
} from '../../../chain/state/indexed.js';
import { RecordRetention } from '../../../chain/state/record-retention.js';
import { DEFAULT_DEAL_RECORD_BLOCKS } from './params.js';

/**
 * Deals as consensus state, under the `omp/` prefix:
 * - `omp/deals/<dealId>` -> CBOR DealRecord (dealId = the creating transaction's hash)
 * - `omp/objects/<cid>` -> CBOR list of the deal ids of an object
 * - `omp/committed/<provider>` -> CBOR number: bytes of pending and active deals it holds (its room
 *   is its capacity less this)
 * - numbered indexes `omp/all/<n>`, `omp/by-client/<address>/<n>`, `omp/by-provider/<address>/<n>`
 * - `omp/due/<second>/<n>` (and `omp/due-from`): lists of deals (up to 32 each) whose acceptance window ends in the second before it (or on it)
 * - `omp/boundaries/<height>/<n>`: deals with a period boundary at that height (challenges settled
 *   and issued; the last boundary is the end of the term)
 * - `omp/forget/<height>/<n>`: deals closed or failed `dealRecordBlocks` before that height: their
 *   records leave the state in that block, and their objects' lists (the numbered indexes keep the id)
 */

export type DealStatus = 'pending' | 'active' | 'closed' | 'failed';

export interface DealReplica {
  readonly provider: string;
  acceptedAt?: number;
  /** The open challenge: the period it is of, the block that issued it and the segments it asks for. */
  challenge?: { readonly period: number; readonly issuedAt: number; readonly indexes: number[] };
  /** The block of its last passed proof. */
  lastProof?: number;
  /** Challenges it missed or failed. */
  faults?: number;
  /** Too many faults: no longer challenged, paid or read from. */
  faulty?: true;
  /** OMC paid to it, decimal. */
  paid?: string;
}

export interface DealRecord {
  readonly dealId: string;
  readonly client: string;
  readonly cid: string;
  readonly size: number;
  /** The object's storage commitment root (0x hex). */
  readonly root: string;
  readonly format: string;
  readonly mediaType: string;
  readonly replicas: number;
  readonly durationBlocks: number;
  /** OMC base units per replica for the whole term, decimal. */
  readonly price: string;
  /** OMC still held for the deal, decimal. */
  escrow: string;
  /** OMC paid to providers so far, decimal. */
  paid: string;
  /** The provider the client uploaded to first, then those the chain chose. */
  readonly providers: DealReplica[];
  status: DealStatus;
  reason?: string;
  readonly createdAt: number;
  readonly acceptBy: Deadline;
  startBlock?: number;
  endBlock?: number;
  /** Periods whose challenges have been issued. */
  periods?: number;
  closedAt?: number;
}

export const dealKey = (dealId: string): string => `omp/deals/${dealId}`;
export const objectDealsKey = (cid: string): string => `omp/objects/${cid}`;
export const committedKey = (provider: string): string => `omp/committed/${provider}`;
export const ALL_DEALS = 'omp/all';
export const clientIndex = (address: string): string => `omp/by-client/${address}`;
export const providerDealIndex = (address: string): string => `omp/by-provider/${address}`;
export const boundaryIndex = (height: number): string => `omp/boundaries/${height}`;
export const dealSchedule = secondSchedule('omp/due');

/** Closed and failed deals' records leave the state `dealRecordBlocks` (a genesis parameter) after they end. */
export const dealRetention = new RecordRetention(
  'dealRecordBlocks',
  'omp',
  (dealId) => dealKey(dealId),
  DEFAULT_DEAL_RECORD_BLOCKS,
);

export function readDeal(read: ReadState, dealId: string): DealRecord | undefined {
  const raw = read(dealKey(dealId));
  return raw ? decode<DealRecord>(raw) : undefined;
}

export function writeDeal(write: WriteState, deal: DealRecord): void {
  write(dealKey(deal.dealId), encode({ ...withoutUndefined(deal), providers: deal.providers.map(withoutUndefined) }));
}

export const readCommitted = (read: ReadState, provider: string): number => readNumber(read, committedKey(provider));

export const addCommitted = (read: ReadState, write: WriteState, provider: string, bytes: number): void =>
  addToNumber(read, write, committedKey(provider), bytes);

export function objectDeals(read: ReadState, cid: string): string[] {
  const raw = read(objectDealsKey(cid));
  return raw ? decode<string[]>(raw) : [];
}
