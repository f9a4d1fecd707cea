import Type from 'typebox';
import { addressPattern, normalizeAddress } from '../../../sdk/address.js';
import type { SubscriptionFactory, SubscriptionKind } from '../../../kernel/plugin.js';
import type { OonService } from '../service.js';
import { readChanged, readJob, type JobStatus } from './state.js';
import { jobView } from './view.js';

const SETTLED: ReadonlySet<JobStatus> = new Set(['finalized', 'failed', 'expired']);

/**
 * `jobs`: one event per status change of a job (its whole view), from the block that made it. With
 * `jobId`, that job only; with `requester`, that requester's jobs; else every job.
 */
export function jobsSubscription(kind: SubscriptionFactory<OonService>): SubscriptionKind {
  return kind({
    kind: 'jobs',
    summary:
      'compute jobs: an event (the job as svc_oonGetJob shows it) each time one changes status; `jobId` or `requester` narrows it',
    options: Type.Object(
      {
        jobId: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
        requester: Type.Optional(Type.String({ pattern: addressPattern })),
      },
      { additionalProperties: false },
    ),
    start(sink, options, service, events) {
      const only = options?.jobId?.toLowerCase();
      const requester = options?.requester ? normalizeAddress(options.requester) : undefined;
      const read = (key: string) => service.chain.state.get(key);
      let done = false;
      /** The last status sent per unsettled job: a block that touched a job without moving it sends nothing. */
      const sent = new Map<string, JobStatus>();
      return events.on('chain:block', ({ height }) => {
        if (done) return;
        // Only the jobs this block changed: a subscriber costs what changes, not how many jobs exist.
        for (const jobId of readChanged(read, height)) {
          if (only && jobId !== only) continue;
          const job = readJob(read, jobId);
          if (!job || (requester && job.requester !== requester) || sent.get(jobId) === job.status) continue;
          sink.send(jobView(job));
          if (SETTLED.has(job.status)) {
            sent.delete(jobId);
            if (only) done = true;
          } else sent.set(jobId, job.status);
        }
      });
    },
  });
}
