import { decode } from '../../../sdk/encoding.js';
import type { ChainReader } from '../../../chain/capabilities.js';
import { readChanged, readJob, type JobRecord, type JobStatus } from './state.js';

export type UnsettledStatus = 'queued' | 'assigned' | 'committed';

const UNSETTLED: ReadonlySet<JobStatus> = new Set<JobStatus>(['queued', 'assigned', 'committed']);

/**
 * Unsettled jobs by status at the head, for metrics: built from one walk over the jobs the first time
 * it is asked, then kept from each block's list of changed jobs (a scrape costs the unsettled jobs,
 * not every job ever run).
 */
export class JobTally {
  private statuses: Map<string, UnsettledStatus> | undefined;

  constructor(private readonly chain: ChainReader) {}

  /** Call on every block, in order (a block's changed-job list is only readable while it is the head). */
  afterBlock(height: number): void {
    if (!this.statuses) return;
    const read = (key: string) => this.chain.state.get(key);
    for (const jobId of readChanged(read, height)) {
      const status = readJob(read, jobId)?.status;
      if (status && UNSETTLED.has(status)) this.statuses.set(jobId, status as UnsettledStatus);
      else this.statuses.delete(jobId);
    }
  }

  /** The chain went back: walked again when next asked. */
  rewound(): void {
    this.statuses = undefined;
  }

  counts(): Record<UnsettledStatus, number> {
    this.statuses ??= this.walk();
    const counts = { queued: 0, assigned: 0, committed: 0 };
    for (const status of this.statuses.values()) counts[status] += 1;
    return counts;
  }

  private walk(): Map<string, UnsettledStatus> {
    const statuses = new Map<string, UnsettledStatus>();
    for (const [, raw] of this.chain.state.entriesUnder('oon/jobs/')) {
      const job = decode<JobRecord>(raw);
      if (UNSETTLED.has(job.status)) statuses.set(job.jobId, job.status as UnsettledStatus);
    }
    return statuses;
  }
}
