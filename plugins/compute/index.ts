import { formatAmountShort } from '../../sdk/amount.js';
import type { ProviderService } from '../providers/service.js';
import { providerCapabilityPlugin } from '../providers/capability.js';
import { OON, type ComputeDetailsSchema } from '../oon/provider-kind.js';
import { ComputeRegistrationSchema, ComputeStatusSchema } from './schemas.js';
import { cbor, hash32 } from '../../kernel/storage/codec.js';
import { defineLayout } from '../../kernel/storage/layout.js';
import { readJob } from '../oon/jobs/state.js';
import { JobRunner, type LocalJob } from './runner.js';
import type { Context } from 'hono';

/** Jobs this node ran as a provider: what it committed to, and the full output and log it serves. */
export const LOCAL_JOBS = defineLayout(
  'compute.jobs',
  hash32('job id'),
  cbor<LocalJob>('local run: result, salt, output, log, commit and reveal tx hashes'),
);
const JOB_ID = /^0x[0-9a-f]{64}$/;
/** Most jobs this node runs side by side (its max_concurrent_jobs, capped: each is a worker thread). */
const MAX_WORKERS = 8;

/** `GET /oon/jobs/<id>/output|log`: this node's copy, else the chain's (small outputs), else who holds it. */
async function serveArtifact(
  c: Context,
  service: ProviderService<JobRunner, typeof ComputeDetailsSchema>,
  which: 'output' | 'log',
): Promise<Response> {
  const jobId = c.req.param('jobId')?.toLowerCase() ?? '';
  if (!JOB_ID.test(jobId))
    return c.json({ error: 'invalid_params', message: 'a job id is 0x and 64 hex characters' }, 400);
  const local = await service.extension.artifact(jobId, which);
  const bytes = (body: Uint8Array): Response =>
    c.body(Buffer.from(body), 200, {
      'content-type': 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=31536000, immutable',
    });
  if (local) return bytes(local);
  const job = readJob((key) => service.chain.state.get(key), jobId);
  if (!job) return c.json({ error: 'not_found', message: `no job ${jobId}` }, 404);
  if (which === 'output' && job.result?.output) return bytes(job.result.output);
  const holders = job.assignments.map((a) => a.provider);
  return c.json(
    {
      error: 'not_found',
      message: `this node does not hold the ${which} of job ${jobId}; ask the node of its provider`,
      providers: holders,
    },
    404,
  );
}

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    compute: ProviderService<JobRunner, typeof ComputeDetailsSchema>;
  }
}

/**
 * The compute capability (OON) on every node: `svc_oonRegisterNode` bonds this node as a compute
 * provider. A `--role compute` node dedicates its capacity; a validator or full node offers what is idle.
 */
// The extension's type is given: inference cannot take it from `create` while `view` reads it.
export default providerCapabilityPlugin<
  typeof ComputeRegistrationSchema,
  typeof ComputeStatusSchema,
  JobRunner,
  typeof ComputeDetailsSchema
>({
  name: 'compute',
  description:
    'compute provider (OON), on every node: registering bonds this node on chain (operator key it holds) and switches the capability on; status, unbonding',
  kind: OON,
  registry: 'oon-registry',
  methods: { register: 'svc_oonRegisterNode', status: 'svc_oonNodeStatus', unregister: 'svc_oonUnregisterNode' },
  registration: ComputeRegistrationSchema,
  status: ComputeStatusSchema,
  details: (registration, role) => ({
    capabilities: registration.capabilities,
    maxConcurrentJobs: registration.max_concurrent_jobs,
    ...(role === 'compute' ? { dedicated: true } : {}),
  }),
  view: ({ status, registration, releaseAt }, role, service) => {
    const details = registration?.details;
    const jobs = service.extension.stats(
      status === 'active' || status === 'unbonding' ? registration?.operator : undefined,
    );
    return {
      registered: status !== 'unregistered',
      status,
      operator: registration?.operator ?? null,
      capabilities: details?.capabilities ?? [],
      bond_ogt: registration ? formatAmountShort(BigInt(registration.bond)) : '0',
      max_concurrent_jobs: details?.maxConcurrentJobs ?? 0,
      activeJobs: jobs.activeJobs,
      completedJobs: jobs.completedJobs,
      dedicated: role === 'compute',
      peerId: registration?.peerId ?? null,
      txHash: registration?.txHash ?? null,
      unregisterTxHash: registration?.unregisterTxHash ?? null,
      releaseAt: releaseAt ?? null,
    };
  },
  extension: {
    namespaces: [LOCAL_JOBS],
    // Code named by CID is a stored object, read through the storage capability.
    requires: ['omp-storage'],
    events: { 'compute:jobRan': 'this node ran an assigned job to an outcome' },
    create: (ctx, service) =>
      new JobRunner({
        chain: ctx.use('chain-reader'),
        submitter: ctx.use('tx-submitter'),
        keys: ctx.use('keys').operators,
        operator: () => service.activeOperator(),
        maxJobs: () => service.localRegistration?.details.maxConcurrentJobs ?? 0,
        maxWorkers: MAX_WORKERS,
        readObject: (cid, maxBytes, signal) => ctx.use('omp-storage').extension.readVerified(cid, maxBytes, signal),
        store: ctx.table(LOCAL_JOBS),
        batch: () => ctx.batch(),
        events: ctx.events,
        log: ctx.log,
        timeoutMs: 600_000,
      }),
    routes: [
      {
        method: 'GET',
        path: '/oon/jobs/:jobId/output',
        summary: "a job's output (this node's copy when it ran the job, else the chain's for small outputs)",
        handler: (c, service) => serveArtifact(c, service, 'output'),
      },
      {
        method: 'GET',
        path: '/oon/jobs/:jobId/log',
        summary: "a job's log (stderr), on the node of a provider that ran it",
        handler: (c, service) => serveArtifact(c, service, 'log'),
      },
    ],
  },
});
