import { decode, encode } from '../../../sdk/encoding.js';
import {
  addToNumber,
  appendIndexed,
  drainIndexed,
  indexCount,
  readIndexed,
  readNumber,
  secondSchedule,
  withoutUndefined,
  unchangedSkipped,
  type ReadState,
  type WriteState,
} from '../../../chain/state/indexed.js';

export { appendIndexed, drainIndexed, indexCount, readIndexed, unchangedSkipped, type ReadState, type WriteState };
import type { Runtime } from '../../../jobs/spec.js';
import type { ReportedResult } from './commitment.js';
import { RecordRetention } from '../../../chain/state/record-retention.js';
import { DEFAULT_JOB_RECORD_BLOCKS, type Deadline } from './params.js';

/**
 * Jobs as consensus state, under the `oon/` prefix:
 * - `oon/jobs/<jobId>` -> CBOR JobRecord (jobId = the submitting transaction's hash)
 * - `oon/code/<sha256>` -> the module or bytecode, stored once for every job that runs it
 * - `oon/code-cid/<cid>` -> the sha256 of code named by CID, once supplied for a dispute (code.ts)
 * - `oon/incoming/<n>` (and `oon/incoming/count`) -> job ids submitted in the current block: moved
 *   to the queue at its end (appending to one list per submission would rewrite it every time)
 * - `oon/queue/<n>` -> job id waiting for providers, numbered in the order it came to wait (a job's
 *   record holds its `queuedAt` position; taken out, the entry is deleted), with `oon/queue/count`,
 *   `oon/queue/head` (no entry below it) and `oon/queue/size` (entries): a block reads only the
 *   front of the queue it can assign, whatever the queue's length
 * - `oon/all/<n>`, `oon/by-requester/<address>/<n>`, `oon/by-provider/<address>/<n>` (each with a
 *   `count`) -> job id: numbered indexes, read newest first
 * - `oon/touched/<n>` (and `count`) -> job ids a commit, reveal or challenge touched in this block
 * - `oon/due/<unix second>/<n>` (and `count`) -> lists of job ids (up to 32 each) with a deadline in the second before it (or on it);
 *   `oon/due-from` -> the first second not yet looked at. The end of a block visits only touched
 *   and due jobs.
 * - `oon/forget/<height>/<n>` (and `count`) -> job ids settled `jobRecordBlocks` before that height:
 *   their records leave the state in that block
 * - `oon/load/<provider>` -> CBOR number of its assignments not yet committed (its taken slots)
 * - `oon/changed` -> CBOR [height, job ids]: the jobs whose status the block at that height changed
 *   (what the `jobs` subscription reads after each block, instead of every job)
 */

export type JobStatus = 'queued' | 'assigned' | 'committed' | 'finalized' | 'failed' | 'expired';

export interface Assignment {
  readonly provider: string;
  readonly assignedAt: number;
  /** Last moment for the commitment. */
  readonly commitBy: Deadline;
  commitment?: string;
  committedAt?: number;
  reveal?: ReportedResult & { readonly output?: Uint8Array };
  revealedAt?: number;
}

export interface JobRecord {
  readonly jobId: string;
  readonly requester: string;
  readonly runtime: Runtime;
  /** Inline code: its sha256 (`oon/code/<sha256>`). */
  readonly codeHash?: string;
  /** Code named by the CID of a stored object (`oon/code-cid/<cid>` once supplied for a dispute). */
  readonly codeCid?: string;
  readonly codeSize: number;
  readonly input: Uint8Array;
  readonly args: string[];
  /** Decimal strings of base units (OMC per gas for the price). */
  readonly gasLimit: string;
  readonly gasPrice: string;
  readonly replicas: 1 | 2;
  /** OMC still held for the job, decimal. */
  escrow: string;
  status: JobStatus;
  /** Why the job waits, or why it failed. */
  reason?: string;
  readonly submittedAt: number;
  readonly submittedTime: number;
  /** The first assignment's block: the job's clock (and an EVM job's NUMBER), the same for every replica and reassignment. */
  assignedAt?: number;
  assignedTime?: number;
  /** Assignments that ran out their deadline so far. */
  attempts: number;
  assignments: Assignment[];
  /** Its position in the queue while it waits there (`oon/queue/<n>`). */
  queuedAt?: number;
  /** Providers that missed a deadline on this job: not assigned it again. */
  excluded: string[];
  /** When the reveal window closes (all commits in). */
  revealBy?: Deadline;
  /** When the challenge window of a single reveal closes. */
  challengeBy?: Deadline;
  challenge?: { readonly challenger: string; readonly deposit: string; readonly at: number };
  /** A dispute over code named by CID waits for the code until then (`oon.supplyCode`). */
  codeBy?: Deadline;
  result?: ReportedResult & {
    readonly output?: Uint8Array;
    /** `dev`: settled by dev mode's control (svc_devSettleJob), with the output it was given. */
    readonly settledBy: 'agreement' | 'unchallenged' | 're-execution' | 'dev';
  };
  /** OMC paid to providers, decimal. */
  fee?: string;
  finalizedAt?: number;
  /** A contract's job: the function the chain calls back when the job is over, and how that went (once it has). */
  callback?: JobCallback;
}

/** The callback of a job a contract submitted through the OON precompile. */
export interface JobCallback {
  /** The 4-byte selector of the contract's function, `0x` and 8 hex digits. */
  readonly selector: string;
  /** Gas the call may use, decimal; paid at the job's gas price. */
  readonly gasLimit: string;
  /** OMC held in the job's escrow for it (gasLimit × gasPrice), decimal. */
  readonly reserve: string;
  /** How the call went; absent until the job is over and the call made. Never made twice. */
  status?: 'success' | 'reverted' | 'out_of_gas' | 'failed' | 'no_code';
  gasUsed?: string;
  /** Why it reverted or failed. */
  revert?: string;
  /** The block it was made in. */
  calledAt?: number;
  /** Its system transaction's hash (from the rules version that gives callbacks receipts). */
  hash?: string;
}

export const jobKey = (jobId: string): string => `oon/jobs/${jobId}`;
export const codeKey = (hash: string): string => `oon/code/${hash}`;
export const QUEUE_INDEX = 'oon/queue';
const QUEUE_HEAD_KEY = 'oon/queue/head';
const QUEUE_SIZE_KEY = 'oon/queue/size';
export const INCOMING_INDEX = 'oon/incoming';
export const ALL_INDEX = 'oon/all';
export const TOUCHED_INDEX = 'oon/touched';
export const CHANGED_KEY = 'oon/changed';
/** Jobs of contracts settled in this block whose callback the EVM makes at its end. */
export const CALLBACKS_DUE_INDEX = 'oon/callbacks-due';
export const loadKey = (provider: string): string => `oon/load/${provider}`;
export const requesterIndex = (address: string): string => `oon/by-requester/${address}`;
export const providerIndex = (address: string): string => `oon/by-provider/${address}`;

export function readJob(read: ReadState, jobId: string): JobRecord | undefined {
  const raw = read(jobKey(jobId));
  return raw ? decode<JobRecord>(raw) : undefined;
}

export function writeJob(write: WriteState, job: JobRecord): void {
  write(jobKey(job.jobId), encode({ ...withoutUndefined(job), assignments: job.assignments.map(withoutUndefined) }));
}

/** Jobs by the second their next deadline falls in (`oon/due/<second>/<n>`, `oon/due-from`). */
const jobSchedule = secondSchedule('oon/due');
export const { scheduleAt, drainDue } = jobSchedule;

/** When the jobs' end step next has work due: a job's deadline, or at once for callbacks a block's budget left waiting. */
export function nextJobWork(read: ReadState): number | undefined {
  if (indexCount(read, CALLBACKS_DUE_INDEX) > 0) return 0;
  return jobSchedule.nextDue(read);
}

/** Puts a job at the back of the queue. */
export function enqueue(read: ReadState, write: WriteState, job: JobRecord): void {
  if (job.queuedAt !== undefined) return;
  job.queuedAt = indexCount(read, QUEUE_INDEX);
  appendIndexed(read, write, QUEUE_INDEX, job.jobId);
  addToNumber(read, write, QUEUE_SIZE_KEY, 1);
}

/** Takes a job out of the queue, wherever it stands. */
export function dequeue(read: ReadState, write: WriteState, job: JobRecord): void {
  if (job.queuedAt === undefined) return;
  write(`${QUEUE_INDEX}/${job.queuedAt}`, undefined);
  job.queuedAt = undefined;
  addToNumber(read, write, QUEUE_SIZE_KEY, -1);
}

/** The queue's job ids, oldest first, for as long as the caller reads on; the head moves past what was taken out. */
export function* queuedJobs(read: ReadState, write: WriteState): Generator<string> {
  const count = indexCount(read, QUEUE_INDEX);
  let head = readNumber(read, QUEUE_HEAD_KEY);
  while (head < count && !read(`${QUEUE_INDEX}/${head}`)) head += 1;
  write(QUEUE_HEAD_KEY, head > 0 ? encode(head) : undefined);
  for (let at = head; at < count; at++) {
    const raw = read(`${QUEUE_INDEX}/${at}`);
    if (raw) yield decode<string>(raw);
  }
}

/** Settled jobs' records leave the state `jobRecordBlocks` (a genesis parameter) after they settle. */
export const jobRetention = new RecordRetention(
  'jobRecordBlocks',
  'oon',
  (jobId) => jobKey(jobId),
  DEFAULT_JOB_RECORD_BLOCKS,
);

/** How many blocks a settled job's record stays in the state. */
export const jobRecordBlocks = (read: ReadState): number => jobRetention.blocks(read);

export const readLoad = (read: ReadState, provider: string): number => readNumber(read, loadKey(provider));

export const addLoad = (read: ReadState, write: WriteState, provider: string, delta: number): void =>
  addToNumber(read, write, loadKey(provider), delta);

/** The jobs whose status the block at `height` changed (empty when the key is of another block). */
export function readChanged(read: ReadState, height: number): string[] {
  const raw = read(CHANGED_KEY);
  if (!raw) return [];
  const [at, ids] = decode<[number, string[]]>(raw);
  return at === height ? ids : [];
}
