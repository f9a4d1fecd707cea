import { createHmac } from 'node:crypto';
import type { Address } from '../../sdk/address.js';
import { toHex } from '../../sdk/bytes.js';
import { type ProviderWorkOptions, resendDue, SerialPasses, submitAsOperator } from '../providers/provider-work.js';
import type { Table } from '../../kernel/storage/layout.js';
import type { WriteBatch } from '../../kernel/storage/namespace.js';
import { JobPool } from '../../jobs/pool.js';
import { resultCommitment, type ReportedResult } from '../oon/jobs/commitment.js';
import { jobSpec, reportOf } from '../oon/jobs/end-block.js';
import { isPast, JOB_PARAMS } from '../oon/jobs/params.js';
import { reportParts, type ReportItem } from './report-parts.js';
import { decode } from '../../sdk/encoding.js';
import { codeKey, indexCount, providerIndex, readJob, readLoad, type JobRecord } from '../oon/jobs/state.js';
import { CODE_FETCH_TIMEOUT_MS, codeCidKey, runFromObject, type ObjectReader } from '../oon/jobs/code.js';
import type { JobOutcome } from '../../jobs/outcome.js';
import { timeoutSignal } from '../../kernel/timeout-signal.js';

/**
 * What this node keeps of a job it ran: the result it committed to, its secret salt, the full output
 * and log. Kept for the output and log it serves; a restart that finds no copy runs the job again
 * (the result is deterministic and the salt derived), so the commitment need not wait for the write.
 */
export interface LocalJob {
  readonly jobId: string;
  readonly result: ReportedResult;
  readonly salt: string;
  readonly output: Uint8Array;
  readonly log: Uint8Array;
}

/** What was sent for a job, in memory only (after a restart the chain says what is still missing). */
interface Sent {
  commitTx?: string;
  commitSentAt?: number;
  revealTx?: string;
  revealSentAt?: number;
  supplyTx?: string;
  supplySentAt?: number;
}

type StateRead = (key: string) => Uint8Array | undefined;

/** Objects of code named by CID kept after a run, for the next jobs that name them (and a dispute's oon.supplyCode). */
const MAX_CACHED_CODE = 16;

declare module '../../kernel/plugin.js' {
  interface SvcEvents {
    /** This node ran an assigned job to an outcome. */
    'compute:jobRan': {
      jobId: string;
      runtime: string;
      outcome: 'exit' | 'out_of_gas' | 'trap';
      gasUsed: bigint;
      seconds: number;
    };
  }
}

/** A report waits at most this long for the results of jobs still running (usually a millisecond or two). */
const REPORT_WAIT_MS = 5;

export interface JobRunnerOptions extends ProviderWorkOptions {
  readonly store: Table<string, LocalJob>;
  /** An atomic write batch (the store's results of one turn go in one). */
  readonly batch: () => WriteBatch;
  /** The registration's max_concurrent_jobs (worker threads: that many, up to `maxWorkers`). */
  readonly maxJobs: () => number;
  readonly maxWorkers: number;
  readonly timeoutMs: number;
  /** Reads code named by CID: a stored object, checked against its CID. */
  readonly readObject: ObjectReader;
}

/**
 * The provider's side of a job: each block (from the moment it is decided, before its write), find
 * this node's assignments, run each new one on the job pool, commit to its result, keep the result,
 * and reveal once every replica has committed; what a turn finds to report leaves in one report.
 * Everything it needs to resume is in the chain state, its store and its operator key: a node
 * restarted mid-job, or before its copy was written, runs the job again (same result, same derived
 * salt) while the deadline allows.
 */
export class JobRunner {
  private readonly running = new Set<string>();
  private pool: JobPool | undefined;
  private off: (() => void) | undefined;
  private readonly passes: SerialPasses;
  private completed = 0;
  private stopped = false;
  /** The active registration's operator, as of the last pass. */
  private operator: string | undefined;
  /** Jobs assigned to this node's operator and not yet revealed; and how far its provider index was read. */
  private readonly open = new Set<string>();
  /** Results of open jobs (written to the store once, at the end of the turn that produced them), and what was sent for them. */
  private readonly results = new Map<string, LocalJob>();
  private readonly sent = new Map<string, Sent>();
  /** Jobs first seen while this process runs: no result of theirs can be in the store. */
  private readonly fresh = new Set<string>();
  /** Jobs whose result here does not open the commitment on chain (logged once). */
  private readonly unopenable = new Set<string>();
  private indexRead = 0;
  private indexOf: string | undefined;
  /** Counts the chain's reverts (a run started before one is not reported), and the count this runner has caught up with. */
  private epoch = 0;
  private epochSeen = 0;
  /** Code objects by CID, most recently used last. */
  private readonly codeObjects = new Map<string, Uint8Array>();
  private readonly stopping = new AbortController();
  /** The block decided and executed while its write is under way (`chain:decided`), until it is committed. */
  private decided: { height: number; timestamp: number; read: StateRead } | undefined;
  /** This turn's commitments and reveals, sent together at its end (`oon.reportResults`). */
  private readonly report = { commits: new Map<string, ReportItem>(), reveals: new Map<string, ReportItem>() };
  /** Sends the report scheduled for this turn (and cancels its timer), when one is. */
  private flushReport: (() => void) | undefined;
  /** Results not yet written to the store (see `keep`). */
  private readonly unkept = new Map<string, LocalJob>();
  private keepScheduled = false;

  constructor(private readonly options: JobRunnerOptions) {
    this.passes = new SerialPasses(() => this.pass(), options.log, 'job runner pass');
  }

  /** Jobs assigned to this node and not yet committed (its taken slots), and jobs it reported since start. */
  stats(operator: string | undefined): { activeJobs: number; completedJobs: number } {
    if (!operator) return { activeJobs: 0, completedJobs: this.completed };
    return {
      activeJobs: readLoad((key) => this.options.chain.state.get(key), operator),
      completedJobs: this.completed,
    };
  }

  /** `/health?verbose`: the job slots this node's registration offers, how many are taken, how many run here now. */
  health(): Record<string, unknown> {
    if (!this.operator) return {};
    return {
      jobSlots: { used: this.stats(this.operator).activeJobs, max: this.options.maxJobs(), running: this.running.size },
    };
  }

  start(): void {
    // A decided block's assignments start running while its write is under way: the slot turns sooner.
    const offDecided = this.options.events.on('chain:decided', ({ height, timestamp, read }) => {
      this.decided = { height, timestamp, read };
      this.passes.run();
    });
    const offBlock = this.options.events.on('chain:block', () => {
      this.decided = undefined;
      this.passes.run();
    });
    const offRewound = this.options.events.on('chain:rewound', () => this.rewound());
    const offRestored = this.options.events.on('chain:restored', () => this.rewound());
    this.off = () => {
      offDecided();
      offBlock();
      offRewound();
      offRestored();
    };
    this.passes.run();
  }

  /**
   * The chain went back (dev mode's revert): the next pass first forgets what this runner knew of
   * jobs and reads them from the chain again, as after a restart.
   */
  private rewound(): void {
    this.epoch++;
    this.passes.run();
  }

  /**
   * A job id names a contract's n-th job, not its content: after a revert the same id may come back
   * as another job, so the results of the jobs it undid leave the store (runs under way for them are
   * neither reported nor kept: see `run`).
   */
  private async forgetUndone(): Promise<void> {
    this.decided = undefined;
    this.indexOf = undefined;
    for (const known of [this.open, this.fresh, this.unopenable]) known.clear();
    for (const known of [this.results, this.sent, this.unkept, this.report.commits, this.report.reveals]) known.clear();
    const read = (key: string) => this.options.chain.state.get(key);
    const batch = this.options.batch();
    for await (const [jobId] of this.options.store.entries())
      if (!readJob(read, jobId)) this.options.store.del(batch, jobId);
    await batch.write();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.passes.stop();
    this.off?.();
    await this.pool?.close();
  }

  private async pass(): Promise<void> {
    if (this.epochSeen !== this.epoch) {
      this.epochSeen = this.epoch;
      await this.forgetUndone();
    }
    const operator = await this.options.operator();
    this.operator = operator;
    if (!operator || this.stopped) return;
    const head = this.options.chain.head;
    // The decided block while it is the one after the head (its write under way); else the head.
    const now =
      this.decided?.height === head.height + 1
        ? this.decided
        : { height: head.height, timestamp: head.timestamp, read: (key: string) => this.options.chain.state.get(key) };
    const { read, height } = now;
    // New assignments since the last pass, from the operator's numbered index: no scan of every job.
    const index = providerIndex(operator);
    if (this.indexOf !== operator) {
      this.indexOf = operator;
      this.indexRead = 0;
      this.open.clear();
    }
    const count = indexCount(read, index);
    const catchingUp = this.indexRead === 0;
    const added = new Set<string>();
    for (; this.indexRead < count; this.indexRead++) {
      const jobId = decode<string>(read(`${index}/${this.indexRead}`)!);
      added.add(jobId);
      if (!catchingUp) this.fresh.add(jobId);
    }
    // New assignments first: their runs hold slots; reports of earlier ones can follow.
    const visit = [...added, ...[...this.open].filter((jobId) => !added.has(jobId))];
    for (const jobId of added) this.open.add(jobId);
    for (const jobId of visit) {
      const job = readJob(read, jobId);
      const assignment = job?.assignments.find((a) => a.provider === operator);
      // A revealed job whose code is named by CID stays watched while unsettled: a dispute may wait for its code.
      const watched = assignment?.reveal !== undefined && job?.codeCid !== undefined && job.status === 'committed';
      if (
        !job ||
        !assignment ||
        (assignment.reveal && !watched) ||
        job.status === 'finalized' ||
        job.status === 'failed' ||
        job.status === 'expired'
      ) {
        this.open.delete(jobId);
        this.results.delete(jobId);
        this.sent.delete(jobId);
        this.fresh.delete(jobId);
        this.unopenable.delete(jobId);
        continue;
      }
      if (this.running.has(jobId)) continue;
      if (watched) {
        const sent = this.sent.get(jobId) ?? {};
        if (
          job.codeBy !== undefined &&
          !read(codeCidKey(job.codeCid!)) &&
          this.due(sent.supplyTx, sent.supplySentAt, height)
        )
          this.supplyCode(job, operator, height);
        continue;
      }
      const local = this.results.get(jobId) ?? (this.fresh.has(jobId) ? undefined : await this.recall(jobId));
      const sent = this.sent.get(jobId) ?? {};
      if (!assignment.commitment) {
        if (!local) {
          if (!isPast(now, assignment.commitBy)) this.run(job, operator, 'commit', read);
        } else if (!isPast(now, assignment.commitBy) && this.due(sent.commitTx, sent.commitSentAt, height)) {
          this.commit(local, operator, height, job.replicas);
        }
      } else if (!local) {
        // Committed before a restart that lost the copy (the commitment leaves before the write): the
        // same run gives the same result, and the derived salt opens the commitment.
        if (!job.revealBy || !isPast(now, job.revealBy)) this.run(job, operator, 'reveal', read);
      } else if (job.status === 'committed' && this.due(sent.revealTx, sent.revealSentAt, height)) {
        this.reveal(local, operator, height, assignment.commitment);
      }
    }
  }

  /** A result kept before a restart. */
  private async recall(jobId: string): Promise<LocalJob | undefined> {
    const local = await this.options.store.get(jobId);
    if (local) this.results.set(jobId, local);
    return local;
  }

  /** Whether to send (again): never sent, or sent long enough ago and no longer pending. */
  private due(tx: string | undefined, sentAt: number | undefined, height: number): boolean {
    return resendDue(this.options.submitter, tx ? { tx, at: sentAt ?? 0 } : undefined, height);
  }

  /** The object of code named by CID: kept from an earlier run, else read from its holders (undefined when none serves it). */
  private async codeObject(cid: string): Promise<Uint8Array | undefined> {
    const cached = this.codeObjects.get(cid);
    if (cached) {
      this.codeObjects.delete(cid);
      this.codeObjects.set(cid, cached);
      return cached;
    }
    const object = await this.options.readObject(
      cid,
      JOB_PARAMS.maxCodeBytesByCid,
      timeoutSignal(CODE_FETCH_TIMEOUT_MS, this.stopping.signal),
    );
    if (!object) return undefined;
    this.codeObjects.set(cid, object);
    if (this.codeObjects.size > MAX_CACHED_CODE) this.codeObjects.delete(this.codeObjects.keys().next().value!);
    return object;
  }

  /** Runs a job to its outcome: inline code from the state; code named by CID fetched and checked first. */
  private async outcomeOf(job: JobRecord, pool: JobPool, read: StateRead): Promise<JobOutcome> {
    if (job.codeHash !== undefined) {
      const code = read(codeKey(job.codeHash));
      if (!code) throw new Error('the job has no code in the state');
      return pool.run(jobSpec(job, code));
    }
    const object = await this.codeObject(job.codeCid!);
    if (!object)
      throw new Error(
        `no provider of ${job.codeCid} served its bytes (checked against the CID); trying again next block`,
      );
    return runFromObject(job.runtime, object, BigInt(job.gasLimit), (code) => pool.run(jobSpec(job, code)));
  }

  /**
   * The salt of this node's commitment to a job: secret (keyed by the operator's key) and the same
   * after a restart, so a result computed again opens a commitment sent before it.
   */
  private saltFor(operator: Address, jobId: string): string | undefined {
    const key = this.options.keys.get(operator);
    return key ? toHex(createHmac('sha256', key.secretKey).update(`svc-oon-salt:${jobId}`).digest()) : undefined;
  }

  private run(job: JobRecord, operator: Address, then: 'commit' | 'reveal', read: StateRead): void {
    this.running.add(job.jobId);
    this.pool ??= new JobPool({
      size: Math.max(1, Math.min(this.options.maxWorkers, this.options.maxJobs())),
      timeoutMs: this.options.timeoutMs,
    });
    const started = performance.now();
    // One info line per job (when it ran): hundreds of jobs a second are a busy provider's normal day.
    this.options.log.debug(
      {
        job: job.jobId,
        runtime: job.runtime,
        gasLimit: job.gasLimit,
        ...(job.codeCid ? { codeCid: job.codeCid } : {}),
      },
      `running job ${job.jobId.slice(0, 10)}…`,
    );
    const epoch = this.epoch;
    void this.outcomeOf(job, this.pool, read)
      .then((outcome) => {
        // The chain went back while it ran: the job it ran may be gone, or another under its id.
        if (epoch !== this.epoch) return;
        const result = reportOf(outcome);
        this.options.events.emit('compute:jobRan', {
          jobId: job.jobId,
          runtime: job.runtime,
          outcome: outcome.exit.kind,
          gasUsed: outcome.gasUsed,
          seconds: (performance.now() - started) / 1000,
        });
        const salt = this.saltFor(operator, job.jobId);
        if (!salt) throw new Error('this node no longer holds the operator key');
        const local: LocalJob = { jobId: job.jobId, result, salt, output: outcome.output, log: outcome.log };
        this.results.set(job.jobId, local);
        this.options.log.debug(
          { job: job.jobId, exit: result.exit, gasUsed: result.gasUsed, ms: Math.round(performance.now() - started) },
          `job ${job.jobId.slice(0, 10)}… ran: ${result.exit}, ${result.gasUsed} gas`,
        );
        this.running.delete(job.jobId);
        if (this.stopped) return;
        // The commitment does not wait for the copy's write (the slot turns sooner): a restart that lost the copy runs the job again and opens it (the salt is derived).
        if (then === 'commit') this.commit(local, operator, this.options.chain.head.height, job.replicas);
        else this.passes.run();
        // The last job running: nothing else to wait for.
        if (this.running.size === 0) this.flushReport?.();
        this.keep(local);
      })
      .catch((error: unknown) =>
        this.options.log.warn(
          { job: job.jobId, err: error },
          `job ${job.jobId.slice(0, 10)}… did not run to an outcome; it will be reassigned after its deadline`,
        ),
      )
      .finally(() => this.running.delete(job.jobId));
  }

  /**
   * The results a turn of the event loop produced are written to the store in one batch at its end,
   * whether their report has left (no job still running) or still waits for the others' results.
   */
  private keep(local: LocalJob): void {
    this.unkept.set(local.jobId, local);
    if (this.keepScheduled) return;
    this.keepScheduled = true;
    setImmediate(() => {
      this.keepScheduled = false;
      const batch = this.options.batch();
      for (const [jobId, kept] of this.unkept) this.options.store.put(batch, jobId, kept);
      const jobs = [...this.unkept.keys()];
      this.unkept.clear();
      batch
        .write()
        .catch((error: unknown) =>
          this.options.log.warn(
            { jobs, err: error },
            `could not keep the outputs and logs of ${jobs.length} job(s) (a restart runs them again)`,
          ),
        );
    });
  }

  private sign(operator: Address, kind: string, payload: Record<string, unknown>): string | undefined {
    return submitAsOperator(this.options, operator, kind, payload);
  }

  /** A dispute over a job this node revealed on waits for its code: send the object's bytes on chain. */
  private supplyCode(job: JobRecord, operator: Address, height: number): void {
    this.running.add(job.jobId);
    void this.codeObject(job.codeCid!)
      .then((object) => {
        if (!object || this.stopped) return;
        const hash = this.sign(operator, 'oon.supplyCode', { jobId: job.jobId, code: toHex(object) });
        if (!hash) return;
        this.options.log.info(
          { job: job.jobId, codeCid: job.codeCid, tx: hash },
          `supplied the code of job ${job.jobId.slice(0, 10)}… for the re-execution of its dispute`,
        );
        this.sent.set(job.jobId, { ...this.sent.get(job.jobId), supplyTx: hash, supplySentAt: height });
      })
      .catch((error: unknown) =>
        this.options.log.warn({ job: job.jobId, err: error }, 'could not supply the code of a disputed job'),
      )
      .finally(() => this.running.delete(job.jobId));
  }

  /**
   * Queues the commitment to a result for this turn's report; a single-replica job's reveal goes in
   * the same report (its commitment, applied first, completes the job's commitments).
   */
  private commit(local: LocalJob, operator: Address, height: number, replicas: number): void {
    this.report.commits.set(local.jobId, {
      jobId: local.jobId,
      commitment: resultCommitment(local.jobId, operator, local.result, local.salt),
    });
    if (replicas === 1) this.queueReveal(local);
    this.scheduleReport(operator, height);
  }

  private reveal(local: LocalJob, operator: Address, height: number, commitment: string): void {
    if (resultCommitment(local.jobId, operator, local.result, local.salt) !== commitment) {
      // A copy lost with a salt no longer derivable, or a run that differs: the chain would refuse the reveal.
      if (!this.unopenable.has(local.jobId))
        this.options.log.error(
          { job: local.jobId },
          `job ${local.jobId.slice(0, 10)}…: this node's result does not open its commitment; it cannot reveal`,
        );
      this.unopenable.add(local.jobId);
      return;
    }
    this.queueReveal(local);
    this.scheduleReport(operator, height);
  }

  private queueReveal(local: LocalJob): void {
    const item: ReportItem = { jobId: local.jobId, ...local.result, salt: local.salt };
    if (local.output.length <= JOB_PARAMS.maxInlineOutput) item.output = toHex(local.output);
    this.report.reveals.set(local.jobId, item);
  }

  /** What this turn found to report goes out at its end, in as few transactions as the limits allow. */
  private scheduleReport(operator: Address, height: number): void {
    if (this.flushReport) return;
    // Jobs still running (started from the same block) usually finish within a millisecond or two:
    // their results join this report — one transaction, not one per group — unless it waits too long.
    const timer = this.running.size > 0 ? setTimeout(() => this.flushReport?.(), REPORT_WAIT_MS) : undefined;
    const immediate = timer === undefined ? setImmediate(() => this.flushReport?.()) : undefined;
    this.flushReport = () => {
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
      this.flushReport = undefined;
      if (!this.stopped) this.sendReports(operator, height);
    };
  }

  private sendReports(operator: Address, height: number): void {
    const parts = reportParts([...this.report.commits.values()], [...this.report.reveals.values()]);
    this.report.commits.clear();
    this.report.reveals.clear();
    for (const part of parts) {
      const hash = this.sign(operator, 'oon.reportResults', { ...part });
      if (!hash) continue;
      const jobs = new Set([...part.commits, ...part.reveals].map(({ jobId }) => jobId)).size;
      this.options.log.info(
        { tx: hash, commitments: part.commits.length, reveals: part.reveals.length },
        `reported ${jobs} job(s): ${part.commits.length} commitment(s), ${part.reveals.length} reveal(s) in ${hash.slice(0, 10)}…`,
      );
      for (const { jobId } of part.commits)
        this.sent.set(jobId, { ...this.sent.get(jobId), commitTx: hash, commitSentAt: height });
      for (const { jobId } of part.reveals) {
        if (!this.sent.get(jobId)?.revealTx) this.completed += 1;
        this.sent.set(jobId, { ...this.sent.get(jobId), revealTx: hash, revealSentAt: height });
      }
    }
  }

  /** The full output or log of a job this node ran. */
  async artifact(jobId: string, which: 'output' | 'log'): Promise<Uint8Array | undefined> {
    const local = this.results.get(jobId) ?? (await this.options.store.get(jobId));
    return local?.[which];
  }
}
