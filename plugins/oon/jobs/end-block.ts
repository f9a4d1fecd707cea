import { sha256 } from '@noble/hashes/sha2.js';
import { fromHex, toHex, utf8 } from '../../../sdk/bytes.js';
import { encode } from '../../../sdk/encoding.js';
import type { BlockContext } from '../../../chain/contract.js';
import type { JobOutcome } from '../../../jobs/outcome.js';
import type { JobSpec } from '../../../jobs/spec.js';
import { readProviders, slashBond, type ProviderKind } from '../../providers/registry.js';
import type { ComputeKind } from '../provider-kind.js';
import { sameResult, type ReportedResult } from './commitment.js';
import {
  challengeWindowOf,
  commitWindowFor,
  deadlineAfter,
  describeDeadline,
  isPast,
  isReached,
  JOB_PARAMS,
  type Deadline,
} from './params.js';
import { codeCidKey, runFromObject } from './code.js';
import {
  addLoad,
  CALLBACKS_DUE_INDEX,
  CHANGED_KEY,
  appendIndexed,
  codeKey,
  dequeue,
  drainDue,
  drainIndexed,
  enqueue,
  jobRetention,
  INCOMING_INDEX,
  providerIndex,
  queuedJobs,
  readJob,
  readLoad,
  scheduleAt,
  TOUCHED_INDEX,
  unchangedSkipped,
  writeJob,
  type Assignment,
  type JobRecord,
  type ReadState,
  type WriteState,
} from './state.js';

/** Runs a job to its outcome off the main thread (the node's re-execution pool). */
export type Reexecute = (spec: JobSpec) => Promise<JobOutcome>;

/** A run's outcome as providers report it. */
export function reportOf(outcome: JobOutcome): ReportedResult {
  const exit =
    outcome.exit.kind === 'exit'
      ? `exit:${outcome.exit.code}`
      : outcome.exit.kind === 'out_of_gas'
        ? 'out_of_gas'
        : `trap:${outcome.exit.reason}`;
  return {
    outputHash: toHex(sha256(outcome.output)),
    exit,
    gasUsed: outcome.gasUsed.toString(),
    outputSize: outcome.output.length,
  };
}

/** What a run of the job needs; the same on every node and for every replica. */
export function jobSpec(job: JobRecord, code: Uint8Array): JobSpec {
  return {
    runtime: job.runtime,
    code,
    input: job.input,
    args: job.args,
    gasLimit: BigInt(job.gasLimit),
    timestamp: job.assignedTime ?? 0,
    height: job.assignedAt ?? 0,
    seed: fromHex(job.jobId),
    limits: JOB_PARAMS.limits,
  };
}

/**
 * The jobs' end of block, on every node: deadlines first (a provider that missed one is slashed a
 * little, its slot freed, the job reassigned or, after its attempts, refunded), then results (agreeing
 * replicas and unchallenged single results are paid; disagreements and challenges are settled by
 * re-executing the job here), then assignment of queued jobs to providers with a free slot.
 */
export async function jobsEndBlock(ctx: BlockContext, kind: ComputeKind, reexecute: Reexecute): Promise<void> {
  const read = (key: string): Uint8Array | undefined => ctx.readState(key);
  const write = unchangedSkipped(read, (key, value) => ctx.writeState(key, value));
  // Records of jobs settled `jobRecordBlocks` ago leave the state (history keeps them).
  jobRetention.forgetDue(read, write, ctx.height);
  const incoming = drainIndexed(read, write, INCOMING_INDEX);
  // Only jobs a transaction touched in this block, or whose deadline came, can change: the others are not read.
  const touched = drainIndexed(read, write, TOUCHED_INDEX);
  const visit = new Set([...touched, ...drainDue(read, write, ctx.timestamp)]);
  // Status changes of this block: new jobs, those a transaction moved on (a commit completing), and whatever this step changes.
  const changed = new Set<string>([...incoming, ...touched]);
  for (const jobId of visit) {
    const job = readJob(read, jobId);
    if (!job || isOver(job)) continue;
    const before = job.status;
    if (job.status === 'assigned') checkCommitDeadlines(ctx, kind, job, read, write);
    else if (job.status === 'committed') await settleResults({ ctx, kind, reexecute, read, write }, job);
    else if (job.status === 'queued') expireIfWaitedOut(ctx, job, read, write);
    // Short of replicas before every commitment is in: find the missing ones. After that the job goes on with the results it has.
    if ((job.status === 'queued' || job.status === 'assigned') && job.assignments.length < job.replicas)
      wait(ctx, job, read, write);
    else dequeue(read, write, job);
    writeJob(write, job);
    if (job.status !== before) changed.add(jobId);
  }
  assignQueued(ctx, kind, incoming, changed);
  // Rewritten only by blocks that change a job (and once more to clear it), not by every block.
  if (changed.size > 0) write(CHANGED_KEY, encode([ctx.height, [...changed]]));
  else if (read(CHANGED_KEY)) write(CHANGED_KEY, undefined);
}

export const isOver = (job: JobRecord): boolean =>
  job.status === 'finalized' || job.status === 'failed' || job.status === 'expired';

/** A job settled in this block: its record goes `jobRecordBlocks` later; a contract's job is called back at this block's end. */
function settledNow(ctx: BlockContext, job: JobRecord): void {
  job.finalizedAt = ctx.height;
  const read = (key: string): Uint8Array | undefined => ctx.readState(key);
  const write = (key: string, value: Uint8Array | undefined): void => ctx.writeState(key, value);
  jobRetention.settled(read, write, ctx.height, job.jobId);
  if (job.callback && job.callback.status === undefined) appendIndexed(read, write, CALLBACKS_DUE_INDEX, job.jobId);
}

/** OMC of a job's escrow held for its callback until the call is made (the rest is settled with the job). */
const heldForCallback = (job: JobRecord): bigint =>
  job.callback && job.callback.status === undefined ? BigInt(job.callback.reserve) : 0n;

/** When a job that waits for providers gives up: `queueWindow` after its submission. */
const queueDeadline = (job: JobRecord): Deadline =>
  deadlineAfter({ height: job.submittedAt, timestamp: job.submittedTime }, JOB_PARAMS.queueWindow);

/** Into the queue (once), with a visit scheduled for when it would expire there. */
function wait(ctx: BlockContext, job: JobRecord, read: ReadState, write: WriteState): void {
  if (job.queuedAt !== undefined) return;
  enqueue(read, write, job);
  if (job.assignments.length === 0)
    scheduleAt(read, write, Math.max(ctx.timestamp + 1000, queueDeadline(job).time), job.jobId);
}

/** A queued job no provider took within its queue window: out of the queue, and refunded. */
function expireUntaken(ctx: BlockContext, job: JobRecord, read: ReadState, write: WriteState): void {
  dequeue(read, write, job);
  refund(
    ctx,
    job,
    'expired',
    `no provider took it within ${JOB_PARAMS.queueWindow.blocks} blocks and ${JOB_PARAMS.queueWindow.ms / 1000} s`,
    read,
    write,
  );
}

/** A job that waited out its queue window with no provider is refunded; one whose time came but not its height is looked at again a second later. */
function expireIfWaitedOut(ctx: BlockContext, job: JobRecord, read: ReadState, write: WriteState): void {
  if (job.assignments.length > 0) return;
  const deadline = queueDeadline(job);
  if (isPast(ctx, deadline)) return expireUntaken(ctx, job, read, write);
  if (ctx.timestamp >= deadline.time) scheduleAt(read, write, ctx.timestamp + 1000, job.jobId);
}

/** Frees the slots of assignments that never committed. */
export function releaseSlots(read: ReadState, write: WriteState, assignments: readonly Assignment[]): void {
  for (const a of assignments) if (!a.commitment) addLoad(read, write, a.provider, -1);
}

/** Ends a job without a result: what is left in escrow goes back to the requester. */
export function refund(
  ctx: BlockContext,
  job: JobRecord,
  status: 'failed' | 'expired',
  reason: string,
  read: ReadState,
  write: WriteState,
): void {
  releaseSlots(read, write, job.assignments);
  const held = heldForCallback(job);
  ctx.credit(job.requester as never, 'OMC', BigInt(job.escrow) - held);
  job.escrow = held.toString();
  job.status = status;
  job.reason = reason;
  job.assignments = [];
  settledNow(ctx, job);
}

/** A missed deadline: the provider is slashed a little (to the requester) and not assigned the job again. */
function dropMissed(
  ctx: BlockContext,
  kind: ProviderKind,
  job: JobRecord,
  missed: readonly Assignment[],
  what: string,
  read: ReadState,
  write: WriteState,
): void {
  for (const assignment of missed) {
    slashBond(ctx, kind, assignment.provider, JOB_PARAMS.missSlashPerMille, job.requester);
    job.excluded.push(assignment.provider);
  }
  releaseSlots(read, write, missed);
  job.assignments = job.assignments.filter((a) => !missed.includes(a));
  job.attempts += 1;
  if (job.attempts >= JOB_PARAMS.maxAttempts)
    return refund(ctx, job, 'failed', `${what} in ${job.attempts} attempts`, read, write);
  job.status = job.assignments.length === 0 ? 'queued' : 'assigned';
  job.reason = `reassigning: ${missed.map((a) => a.provider).join(', ')} ${what}`;
}

function checkCommitDeadlines(
  ctx: BlockContext,
  kind: ProviderKind,
  job: JobRecord,
  read: ReadState,
  write: WriteState,
): void {
  const missed = job.assignments.filter((a) => !a.commitment && isPast(ctx, a.commitBy));
  if (missed.length > 0) dropMissed(ctx, kind, job, missed, 'did not commit a result by its deadline', read, write);
  // A deadline whose time came but not yet its height: look again a second later.
  const open = job.assignments.filter((a) => !a.commitment);
  if (job.status === 'assigned' && open.length > 0)
    scheduleAt(read, write, Math.max(ctx.timestamp + 1000, Math.min(...open.map((a) => a.commitBy.time))), job.jobId);
}

/** What settling a job's results works with: the block, the registry's kind, re-execution and the state. */
export interface Settling {
  readonly ctx: BlockContext;
  readonly kind: ProviderKind;
  readonly reexecute: Reexecute;
  readonly read: ReadState;
  readonly write: WriteState;
}

async function settleResults(settling: Settling, job: JobRecord): Promise<void> {
  const { ctx, kind, read, write } = settling;
  const revealed = job.assignments.filter((a) => a.reveal);
  if (job.challengeBy === undefined) {
    if (revealed.length < job.replicas) {
      if (!isPast(ctx, job.revealBy!))
        return scheduleAt(read, write, Math.max(ctx.timestamp + 1000, job.revealBy!.time), job.jobId);
      // The reveal window closed: those that did not open their commitment are slashed.
      const missed = job.assignments.filter((a) => !a.reveal);
      if (revealed.length === 0) {
        dropMissed(ctx, kind, job, missed, 'did not reveal its result', read, write);
        // Their commitments are void: a new attempt starts from scratch.
        job.assignments = [];
        job.revealBy = undefined;
        if (job.status !== 'failed') job.status = 'queued';
        return;
      }
      for (const assignment of missed)
        slashBond(ctx, kind, assignment.provider, JOB_PARAMS.missSlashPerMille, job.requester);
      job.assignments = revealed;
    }
    const [first, ...rest] = revealed;
    if (revealed.length > 1 && rest.every((a) => sameResult(a.reveal!, first!.reveal!)))
      return finalize(ctx, job, revealed, first!.reveal!, 'agreement');
    if (revealed.length > 1) return settleByReexecution(settling, job);
    // One result: open for challenge before it is paid.
    job.challengeBy = deadlineAfter(ctx, challengeWindowOf(read));
    return scheduleAt(read, write, job.challengeBy.time, job.jobId);
  }
  if (job.challenge) return settleByReexecution(settling, job);
  // The window's last block may still carry a challenge (applied above, before this step): the result
  // is unchallenged once that block is reached, not a block later.
  if (!isReached(ctx, job.challengeBy))
    return scheduleAt(read, write, Math.max(ctx.timestamp + 1000, job.challengeBy.time), job.jobId);
  finalize(ctx, job, revealed, revealed[0]!.reveal!, 'unchallenged');
}

/** Every node runs the job itself; providers whose result differs lose part of their bond. */
export async function settleByReexecution(settling: Settling, job: JobRecord): Promise<void> {
  const { ctx, kind, reexecute, read, write } = settling;
  let outcome: JobOutcome;
  if (job.codeHash !== undefined) outcome = await reexecute(jobSpec(job, ctx.readState(codeKey(job.codeHash))!));
  else {
    const supplied = read(codeCidKey(job.codeCid!));
    if (!supplied) return awaitCode(ctx, job, read, write);
    const object = ctx.readState(codeKey(new TextDecoder().decode(supplied)))!;
    outcome = await runFromObject(job.runtime, object, BigInt(job.gasLimit), (code) => reexecute(jobSpec(job, code)));
  }
  const truth = reportOf(outcome);
  const revealed = job.assignments.filter((a) => a.reveal);
  const honest = revealed.filter((a) => sameResult(a.reveal!, truth));
  const beneficiary = job.challenge?.challenger ?? job.requester;
  for (const wrong of revealed.filter((a) => !honest.includes(a)))
    slashBond(ctx, kind, wrong.provider, JOB_PARAMS.wrongSlashPerMille, beneficiary);
  if (job.challenge) {
    // A challenge of an honest result forfeits the deposit to the provider; of a wrong one, it comes back.
    ctx.credit((honest[0]?.provider ?? job.challenge.challenger) as never, 'OMC', BigInt(job.challenge.deposit));
  }
  const output = outcome.output.length <= JOB_PARAMS.maxInlineOutput ? outcome.output : undefined;
  finalize(ctx, job, honest, { ...truth, ...(output ? { output } : {}) }, 're-execution');
}

/**
 * A dispute over code named by CID, with the code not on chain: it waits `codeSupplyWindow` for an
 * `oon.supplyCode`; past that, no node can judge it, so no one is paid or slashed: the requester gets
 * the escrow back and a challenger its deposit.
 */
function awaitCode(ctx: BlockContext, job: JobRecord, read: ReadState, write: WriteState): void {
  job.codeBy ??= deadlineAfter(ctx, JOB_PARAMS.codeSupplyWindow);
  if (!isPast(ctx, job.codeBy)) {
    job.reason = `settling by re-execution: waiting for the code ${job.codeCid} on chain (oon.supplyCode) until ${describeDeadline(job.codeBy)}`;
    return scheduleAt(read, write, Math.max(ctx.timestamp + 1000, job.codeBy.time), job.jobId);
  }
  if (job.challenge) ctx.credit(job.challenge.challenger as never, 'OMC', BigInt(job.challenge.deposit));
  refund(
    ctx,
    job,
    'failed',
    `the code ${job.codeCid} was not supplied for the re-execution that settles this job's dispute by ${describeDeadline(job.codeBy)}: refunded, no one paid or slashed`,
    read,
    write,
  );
}

/** Pays each provider of the right result gasUsed × gasPrice, refunds the rest of the escrow. */
export function finalize(
  ctx: BlockContext,
  job: JobRecord,
  payees: readonly Assignment[],
  result: ReportedResult & { output?: Uint8Array },
  settledBy: 'agreement' | 'unchallenged' | 're-execution' | 'dev',
): void {
  const fee = BigInt(result.gasUsed) * BigInt(job.gasPrice);
  let escrow = BigInt(job.escrow);
  for (const payee of payees) {
    ctx.credit(payee.provider as never, 'OMC', fee);
    escrow -= fee;
  }
  const held = heldForCallback(job);
  ctx.credit(job.requester as never, 'OMC', escrow - held);
  const output = result.output ?? payees.find((p) => p.reveal?.output)?.reveal?.output;
  job.result = {
    outputHash: result.outputHash,
    exit: result.exit,
    gasUsed: result.gasUsed,
    outputSize: result.outputSize,
    ...(output ? { output } : {}),
    settledBy,
  };
  job.fee = (fee * BigInt(payees.length)).toString();
  job.escrow = held.toString();
  job.status = 'finalized';
  job.reason = undefined;
  settledNow(ctx, job);
}

/**
 * Queued jobs to providers with the runtime and a free slot, compute-role providers first, then by a
 * hash of the parent block, the job and the provider: the queue oldest first for as long as a slot
 * is free, then this block's submissions (each of which is looked at, to say why it waits).
 */
function assignQueued(ctx: BlockContext, kind: ComputeKind, incoming: readonly string[], changed: Set<string>): void {
  const read = (key: string): Uint8Array | undefined => ctx.readState(key);
  const write = unchangedSkipped(read, (key, value) => ctx.writeState(key, value));
  const providers = readProviders(read, kind).filter((record) => record.releaseAt === undefined);
  const load = new Map(providers.map((p) => [p.operator, readLoad(read, p.operator)]));
  let free = providers.reduce((sum, p) => sum + Math.max(0, p.details.maxConcurrentJobs - load.get(p.operator)!), 0);

  /** Assigns what it can; a job still short of providers says why and stays (or goes) in the queue. */
  const consider = (job: JobRecord): void => {
    const before = job.status;
    if (job.assignments.length === 0 && isPast(ctx, queueDeadline(job))) expireUntaken(ctx, job, read, write);
    else {
      const need = job.replicas - job.assignments.length;
      const offering = providers.filter((p) => p.details.capabilities.includes(job.runtime));
      const eligible = offering.filter(
        (p) => !job.excluded.includes(p.operator) && !job.assignments.some((a) => a.provider === p.operator),
      );
      const open = eligible.filter((p) => load.get(p.operator)! < p.details.maxConcurrentJobs);
      if (open.length < need) {
        job.reason =
          offering.length === 0
            ? `waiting: no active provider offers ${job.runtime}`
            : open.length === 0 && eligible.length > 0
              ? `waiting: every ${job.runtime} provider is at its max_concurrent_jobs`
              : `waiting: ${need} more ${job.runtime} provider(s) with a free slot needed, ${open.length} available`;
        wait(ctx, job, read, write);
      } else {
        assign(job, open, need);
        dequeue(read, write, job);
      }
    }
    writeJob(write, job);
    if (job.status !== before) changed.add(job.jobId);
  };

  const assign = (job: JobRecord, open: (typeof providers)[number][], need: number): void => {
    const rank = new Map(
      open.map((p) => [p.operator, toHex(sha256(utf8(`${ctx.parentHash}|${job.jobId}|${p.operator}`)))]),
    );
    open.sort((a, b) => {
      const dedicated = Number(b.details.dedicated === true) - Number(a.details.dedicated === true);
      return dedicated !== 0 ? dedicated : rank.get(a.operator)! < rank.get(b.operator)! ? -1 : 1;
    });
    if (job.assignedAt === undefined) {
      job.assignedAt = ctx.height;
      job.assignedTime = ctx.timestamp;
    }
    const commitBy = deadlineAfter(ctx, commitWindowFor(job.runtime, BigInt(job.gasLimit)));
    for (const provider of open.slice(0, need)) {
      job.assignments.push({ provider: provider.operator, assignedAt: ctx.height, commitBy });
      load.set(provider.operator, load.get(provider.operator)! + 1);
      addLoad(read, write, provider.operator, 1);
      free -= 1;
      appendIndexed(read, write, providerIndex(provider.operator), job.jobId);
    }
    scheduleAt(read, write, commitBy.time, job.jobId);
    job.status = 'assigned';
    job.reason = undefined;
  };

  if (free > 0) {
    for (const jobId of queuedJobs(read, write)) {
      const job = readJob(read, jobId)!;
      consider(job);
      if (free === 0) break;
    }
  }
  for (const jobId of incoming) consider(readJob(read, jobId)!);
}
