import { OON } from './provider-kind.js';
import { listProvidersMethod } from '../providers/list-method.js';
import { genesisProviderEntries } from '../providers/genesis-providers.js';
import Type from 'typebox';
import { definePlugin } from '../../kernel/plugin.js';
import { providerTxKinds, releaseBonds, unbondingGenesis } from '../providers/registry.js';
import { OonService } from './service.js';
import { jobsEndBlock } from './jobs/end-block.js';
import { jobMethods } from './jobs/rpc.js';
import { jobsSubscription } from './jobs/subscription.js';
import { jobsGenesis } from './jobs/genesis.js';
import { jobTxKinds } from './jobs/tx-kinds.js';
import { devJobKind } from './jobs/dev-controls.js';
import { nextJobWork } from './jobs/state.js';
import { oonPrecompile } from './precompile.js';
import { OON_ERRORS } from './errors.js';
import type {} from '../metrics/gauges.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    'oon-registry': OonService;
  }
}

/**
 * The compute-provider registry as chain rules: the `oon.register` / `oon.unregister` transaction
 * kinds, the release of unbonded bonds at the end of each block, and the provider list. Every node
 * loads it (a block holding these transactions must execute the same everywhere); the `compute`
 * plugin adds this node's own registration on top.
 */
export default definePlugin({
  name: 'oon',
  errors: OON_ERRORS,
  version: '1.0.0',
  description:
    'compute (OON) chain rules on every node: provider registry (oon.register / oon.unregister, bond release) and jobs (oon.submitJob, commit, reveal, challenge; assignment, deadlines, payment, re-execution of disputes)',
  requires: ['chain-reader', 'tx-submitter', 'omp-deals', 'omp-storage'],
  config: Type.Object({ dev: Type.Boolean({ default: false }) }, { additionalProperties: false, default: {} }),
  configFromNode: (node) => ({ dev: node.dev === true }),
  provides: ['oon-registry'],
  // The EVM runs the OON precompile and calls contracts back: what they change of jobs is written in its transactions and end step.
  stateDelegates: ['evm'],
  init(ctx) {
    const service = new OonService(OON, ctx.use('chain-reader'), ctx.use('tx-submitter'), ctx.use('omp-deals'));
    service.dev = ctx.config.dev;
    // The node's storage capability reads code named by CID (for svc_oonEstimate); chain rules never run it.
    const objects = ctx.use('omp-storage').extension;
    service.readObject = (cid, maxBytes, signal) => objects.readVerified(cid, maxBytes, signal);
    ctx.events.on('chain:block', ({ height }) => service.tally.afterBlock(height));
    ctx.events.on('chain:rewound', () => service.tally.rewound());
    ctx.events.on('chain:restored', () => service.tally.rewound());
    return service;
  },
  stop: (service) => service.close(),
  txKinds: (kind) => [...providerTxKinds(OON, kind), ...jobTxKinds(kind), devJobKind(kind, OON)],
  gauges: (service) => [
    {
      name: 'svc_oon_jobs',
      help: 'compute jobs not yet settled, by state (queued is the queue length)',
      labelNames: ['status'],
      collect: (set) => {
        for (const [status, count] of Object.entries(service.jobCounts())) set(count, { status });
      },
    },
  ],
  precompiles: (precompile) => [oonPrecompile(precompile)],
  async endBlock(ctx, service) {
    releaseBonds(ctx, OON);
    await jobsEndBlock(ctx, OON, (spec) => service.run(spec));
  },
  nextDue: (read) => nextJobWork(read),
  genesis: (parameters) => [
    ...unbondingGenesis(parameters),
    ...genesisProviderEntries(OON, parameters),
    ...jobsGenesis(parameters),
  ],
  subscriptions: (kind) => [jobsSubscription(kind)],
  rpc: (method) => [
    ...jobMethods(method),
    listProvidersMethod(method, {
      name: 'svc_oonListProviders',
      summary: 'Active compute providers registered on chain (any node answers the same).',
      fields: { capabilities: Type.Array(Type.String()), max_concurrent_jobs: Type.Integer() },
      view: (details) => ({ capabilities: details.capabilities, max_concurrent_jobs: details.maxConcurrentJobs }),
    }),
  ],
});
