import { randomBytes } from 'node:crypto';
import type { Address } from '../../sdk/address.js';
import { toHex } from '../../sdk/bytes.js';
import { SerialPasses, submitAsOperator } from '../providers/provider-work.js';
import type { ChainReader, TxSubmitter } from '../../chain/capabilities.js';
import type { ScopedEvents } from '../../kernel/events.js';
import type { Logger } from '../../kernel/log.js';
import type { Table } from '../../kernel/storage/layout.js';
import type { OperatorKeys } from '../../keys/node-keys.js';
import { JobPool } from '../../jobs/pool.js';
import { resultCommitment, type ReportedResult } from '../oon/jobs/commitment.js';
import { jobSpec, reportOf } from '../oon/jobs/end-block.js';
import { isPast, JOB_PARAMS } from '../oon/jobs/params.js';
import { decode } from '../../sdk/encoding.js';
import { codeKey, indexCount, providerIndex, readJob, readLoad, type JobRecord } from '../oon/jobs/state.js';

/** What this node keeps of a job it ran: the result it committed to, its secret salt, the full output and log. */
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
}

declare module '../../kernel/plugin.js' {
  interface SvcEvents {
    /** This node ran an assigned job to an outcome. */
    'compute:jobRan': { jobId: string; runtime: string; outcome: 'exit' | 'out_of_gas' | 'trap'; gasUsed: bigint; seconds: number };
  }
}

/** Blocks to wait for a sent commit or reveal to be mined before sending it again (it may have been dropped). */
const RESEND_AFTER_BLOCKS = 5;

export interface JobRunnerOptions {
  readonly chain: ChainReader;
  readonly submitter: TxSubmitter;
  readonly keys: OperatorKeys;
  /** This node's operator while its registration is active, else undefined. */
  readonly operator: () => Promise<Address | undefined>;
  readonly store: Table<string, LocalJob>;
  readonly events: ScopedEvents;
  readonly log: Logger;
  /** The registration's max_concurrent_jobs (worker threads: that many, up to `maxWorkers`). */
  readonly maxJobs: () => number;
  readonly maxWorkers: number;
  readonly timeoutMs: number;
}

/**
 * The provider's side of a job: each block, find this node's assignments, run each new one on the
 * job pool, keep the result (before anything is sent, so a restart does not lose it), commit to it,
 * and reveal once every replica has committed. Everything it needs to resume is in the chain state
 * and its store: a node restarted mid-job runs the job again (same result) while the deadline allows.
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
  /** Results of open jobs (written to the store once, before the commitment leaves), and what was sent for them. */
  private readonly results = new Map<string, LocalJob>();
  private readonly sent = new Map<string, Sent>();
  /** Jobs first seen while this process runs: no result of theirs can be in the store. */
  private readonly fresh = new Set<string>();
  private indexRead = 0;
  private indexOf: string | undefined;

  constructor(private readonly options: JobRunnerOptions) {
    this.passes = new SerialPasses(() => this.pass(), options.log, 'job runner pass');
  }

  /** Jobs assigned to this node and not yet committed (its taken slots), and jobs it reported since start. */
  stats(operator: string | undefined): { activeJobs: number; completedJobs: number } {
    if (!operator) return { activeJobs: 0, completedJobs: this.completed };
    return { activeJobs: readLoad((key) => this.options.chain.state.get(key), operator), completedJobs: this.completed };
  }

  /** `/health?verbose`: the job slots this node's registration offers, how many are taken, how many run here now. */
  health(): Record<string, unknown> {
    if (!this.operator) return {};
    return { jobSlots: { used: this.stats(this.operator).activeJobs, max: this.options.maxJobs(), running: this.running.size } };
  }

  start(): void {
    this.off = this.options.events.on('chain:block', () => this.passes.run());
    this.passes.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.passes.stop();
    this.off?.();
    await this.pool?.close();
  }

  private async pass(): Promise<void> {
    const operator = await this.options.operator();
    this.operator = operator;
    if (!operator || this.stopped) return;
    const read = (key: string) => this.options.chain.state.get(key);
    const head = this.options.chain.head;
    const height = head.height;
    const now = { height, timestamp: head.timestamp };
    // New assignments since the last pass, from the operator's numbered index: no scan of every job.
    const index = providerIndex(operator);
    if (this.indexOf !== operator) {
      this.indexOf = operator;
      this.indexRead = 0;
      this.open.clear();
    }
    const count = indexCount(read, index);
    const catchingUp = this.indexRead === 0;
    for (; this.indexRead < count; this.indexRead++) {
      const jobId = decode<string>(read(`${index}/${this.indexRead}`)!);
      this.open.add(jobId);
      if (!catchingUp) this.fresh.add(jobId);
    }
    for (const jobId of [...this.open]) {
      const job = readJob(read, jobId);
      const assignment = job?.assignments.find((a) => a.provider === operator);
      if (!job || !assignment || assignment.reveal || job.status === 'finalized' || job.status === 'failed' || job.status === 'expired') {
        this.open.delete(jobId);
        this.results.delete(jobId);
        this.sent.delete(jobId);
        this.fresh.delete(jobId);
        continue;
      }
      if (this.running.has(jobId)) continue;
      const local = this.results.get(jobId) ?? (this.fresh.has(jobId) ? undefined : await this.recall(jobId));
      const sent = this.sent.get(jobId) ?? {};
      if (job.status === 'assigned' && !assignment.commitment) {
        if (!local) {
          if (!isPast(now, assignment.commitBy)) this.run(job, operator);
        } else if (!isPast(now, assignment.commitBy) && this.due(sent.commitTx, sent.commitSentAt, height)) {
          this.commit(local, operator, height);
        }
      } else if (job.status === 'committed' && local && this.due(sent.revealTx, sent.revealSentAt, height)) {
        this.reveal(local, operator, height);
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
    if (!tx) return true;
    return !this.options.submitter.isPending(tx) && height - (sentAt ?? 0) >= RESEND_AFTER_BLOCKS;
  }

  private run(job: JobRecord, operator: Address): void {
    this.running.add(job.jobId);
    this.pool ??= new JobPool({ size: Math.max(1, Math.min(this.options.maxWorkers, this.options.maxJobs())), timeoutMs: this.options.timeoutMs });
    const code = this.options.chain.state.get(codeKey(job.codeHash));
    if (!code) {
      this.running.delete(job.jobId);
      return void this.options.log.error({ job: job.jobId }, 'assigned job has no code in the state');
    }
    const started = performance.now();
    this.options.log.info({ job: job.jobId, runtime: job.runtime, gasLimit: job.gasLimit }, `running job ${job.jobId.slice(0, 10)}…`);
    void this.pool
      .run(jobSpec(job, code))
      .then(async (outcome) => {
        const result = reportOf(outcome);
        this.options.events.emit('compute:jobRan', { jobId: job.jobId, runtime: job.runtime, outcome: outcome.exit.kind, gasUsed: outcome.gasUsed, seconds: (performance.now() - started) / 1000 });
        const local: LocalJob = { jobId: job.jobId, result, salt: toHex(randomBytes(32)), output: outcome.output, log: outcome.log };
        // Kept before the commitment leaves the node: a restart must be able to reveal it.
        await this.options.store.putNow(job.jobId, local);
        this.results.set(job.jobId, local);
        this.options.log.info({ job: job.jobId, exit: result.exit, gasUsed: result.gasUsed, ms: Math.round(performance.now() - started) }, `job ${job.jobId.slice(0, 10)}… ran: ${result.exit}, ${result.gasUsed} gas`);
        if (!this.stopped) this.commit(local, operator, this.options.chain.head.height);
      })
      .catch((error: unknown) => this.options.log.warn({ job: job.jobId, err: error }, `job ${job.jobId.slice(0, 10)}… did not run to an outcome; it will be reassigned after its deadline`))
      .finally(() => this.running.delete(job.jobId));
  }

  private sign(operator: Address, kind: string, payload: Record<string, unknown>): string | undefined {
    return submitAsOperator(this.options, operator, kind, payload);
  }

  private commit(local: LocalJob, operator: Address, height: number): void {
    const commitment = resultCommitment(local.jobId, operator, local.result, local.salt);
    const hash = this.sign(operator, 'oon.commitResult', { jobId: local.jobId, commitment });
    if (hash) this.sent.set(local.jobId, { ...this.sent.get(local.jobId), commitTx: hash, commitSentAt: height });
  }

  private reveal(local: LocalJob, operator: Address, height: number): void {
    const payload: Record<string, unknown> = { jobId: local.jobId, ...local.result, salt: local.salt };
    if (local.output.length <= JOB_PARAMS.maxInlineOutput) payload.output = toHex(local.output);
    const hash = this.sign(operator, 'oon.revealResult', payload);
    if (!hash) return;
    if (!this.sent.get(local.jobId)?.revealTx) this.completed += 1;
    this.sent.set(local.jobId, { ...this.sent.get(local.jobId), revealTx: hash, revealSentAt: height });
  }

  /** The full output or log of a job this node ran. */
  async artifact(jobId: string, which: 'output' | 'log'): Promise<Uint8Array | undefined> {
    const local = await this.options.store.get(jobId);
    return local?.[which];
  }
}
