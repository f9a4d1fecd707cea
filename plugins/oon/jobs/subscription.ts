import Type from 'typebox';
import { addressPattern, normalizeAddress } from '../../../sdk/address.js';
import type { SubscriptionFactory, SubscriptionKind } from '../../../kernel/plugin.js';
import type { OonService } from '../service.js';
import { ACTIVE_KEY, QUEUE_KEY, readJob, readList, type JobStatus } from './state.js';
import { jobView } from './view.js';

const SETTLED: ReadonlySet<JobStatus> = new Set(['finalized', 'failed', 'expired']);

/**
 * `jobs`: one event per status change of a job (its whole view), from the block that made it. With
 * `jobId`, that job only; with `requester`, that requester's jobs; else every job.
 */
export function jobsSubscription(kind: SubscriptionFactory<OonService>): SubscriptionKind {
  return kind({
    kind: 'jobs',
    summary: 'compute jobs: an event (the job as svc_oonGetJob shows it) each time one changes status; `jobId` or `requester` narrows it',
    options: Type.Object({ jobId: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })), requester: Type.Optional(Type.String({ pattern: addressPattern })) }, { additionalProperties: false }),
    start(sink, options, service, events) {
      const only = options?.jobId?.toLowerCase();
      const requester = options?.requester ? normalizeAddress(options.requester) : undefined;
      const read = (key: string) => service.chain.state.get(key);
      /** Unsettled jobs seen so far, by their last status: a job leaves the active list in the block that settles it. */
      const known = new Map<string, JobStatus>();
      let onlyDone = false;
      const consider = (jobId: string): void => {
        if (only && (jobId !== only || onlyDone)) return;
        const job = readJob(read, jobId);
        if (!job || (requester && job.requester !== requester)) return;
        if (known.get(jobId) === job.status) return;
        sink.send(jobView(job));
        if (SETTLED.has(job.status)) {
          known.delete(jobId);
          if (only) onlyDone = true;
        } else known.set(jobId, job.status);
      };
      return events.on('chain:block', ({ receipts }) => {
        const candidates = new Set<string>(known.keys());
        for (const receipt of receipts) if (receipt.kind === 'oon.submitJob' && receipt.status === 'success') candidates.add(receipt.transactionHash);
        for (const id of readList(read, ACTIVE_KEY)) candidates.add(id);
        for (const id of readList(read, QUEUE_KEY)) candidates.add(id);
        if (only) for (const id of [...candidates]) if (id !== only) candidates.delete(id);
        if (only) candidates.add(only);
        for (const jobId of candidates) consider(jobId);
      });
    },
  });
}
