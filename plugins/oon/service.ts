import type { ChainReader, TxSubmitter } from '../../chain/capabilities.js';
import { JobPool } from '../../jobs/pool.js';
import type { JobOutcome } from '../../jobs/outcome.js';
import type { JobSpec } from '../../jobs/spec.js';
import { ProviderRegistry } from '../providers/registry-service.js';
import type { ProviderKind } from '../providers/registry.js';
import type { ComputeDetailsSchema } from './provider-kind.js';
import { JobTally, type UnsettledStatus } from './jobs/tally.js';
import { jobKey, jobRecordBlocks, type JobRecord } from './jobs/state.js';
import { decode } from '../../sdk/encoding.js';
import type { ObjectReader } from './jobs/code.js';
import type { OmpDeals } from '../omp/deals/capability.js';

/** Wall-clock safety net for a re-execution (gas ceilings keep a real one far below it). */
const REEXECUTION_TIMEOUT_MS = 120_000;

/**
 * The OON chain rules' service on every node: the provider registry at the head, and a worker for
 * re-executing disputed jobs (and dry runs), made on first use so a node that never sees a dispute
 * starts no thread for it.
 */
export class OonService extends ProviderRegistry<typeof ComputeDetailsSchema> {
  private pool: JobPool | undefined;
  private closed = false;
  /** Kept by the plugin's `chain:block` listener. */
  readonly tally: JobTally;
  /** Stored objects (code named by CID), read through the node's storage capability. */
  readObject: ObjectReader = async () => undefined;
  /** Started with `--dev`: admits dev mode's job controls. */
  dev = false;

  constructor(
    kind: ProviderKind<typeof ComputeDetailsSchema>,
    chain: ChainReader,
    readonly submitter: TxSubmitter,
    /** OMP's deals, which keep the objects a job's code may be named by (the `omp-deals` capability). */
    readonly deals: OmpDeals,
  ) {
    super(kind, chain);
    this.tally = new JobTally(chain);
  }

  /** Jobs not yet settled, by state, at the head (metrics). */
  jobCounts(): Record<UnsettledStatus, number> {
    return this.tally.counts();
  }

  /**
   * A job's record: from the state, or for a job settled long ago, from the history this node keeps;
   * with `height`, as it was after that block.
   */
  async jobRecord(jobId: string, height?: number): Promise<JobRecord | undefined> {
    const raw = await (height === undefined
      ? this.chain.state.lastKnownValue(jobKey(jobId))
      : this.chain.stateAt(height)(jobKey(jobId)));
    return raw ? decode<JobRecord>(raw) : undefined;
  }

  /** How many blocks a settled job's record stays in the state. */
  jobRecordBlocks(): number {
    return jobRecordBlocks((key) => this.chain.state.get(key));
  }

  /** Runs a job off the main thread to its outcome (the same on every node). */
  run(spec: JobSpec): Promise<JobOutcome> {
    if (this.closed) return Promise.reject(new Error('the node is stopping'));
    this.pool ??= new JobPool({ size: 1, timeoutMs: REEXECUTION_TIMEOUT_MS });
    return this.pool.run(spec);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.close();
  }
}
