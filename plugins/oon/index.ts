import { genesisProviderEntries } from '../providers/genesis-providers.js';
import Type from 'typebox';
import { definePlugin } from '../../kernel/plugin.js';
import { providerTxKinds, releaseBonds, unbondingGenesis, type ProviderKind } from '../providers/registry.js';
import { OonService } from './service.js';
import { jobsEndBlock } from './jobs/end-block.js';
import { jobMethods } from './jobs/rpc.js';
import { jobsSubscription } from './jobs/subscription.js';
import { jobsGenesis } from './jobs/genesis.js';
import { jobTxKinds } from './jobs/tx-kinds.js';
import { formatAmountShort, UNIT } from '../../sdk/amount.js';
import { oonPrecompile } from './precompile.js';
import { OON_ERRORS } from './errors.js';
import type {} from '../metrics/gauges.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    'oon-registry': OonService;
  }
}

/** The runtimes a compute provider may offer (the chain rules own them; the compute capability uses them). */
export const RUNTIMES = ['wasm', 'evm'] as const;
export const Capabilities = Type.Array(Type.Union(RUNTIMES.map((r) => Type.Literal(r))), {
  minItems: 1,
  uniqueItems: true,
  description: 'distinct runtimes: wasm, evm',
});

/** What a compute registration records on chain besides the bond. */
export const ComputeDetailsSchema = Type.Object(
  {
    capabilities: Capabilities,
    maxConcurrentJobs: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    dedicated: Type.Optional(
      Type.Literal(true, {
        description: 'a --role compute node: assigned jobs before providers that lend idle capacity',
      }),
    ),
  },
  { additionalProperties: false },
);

export interface ComputeDetails {
  capabilities: string[];
  maxConcurrentJobs: number;
  dedicated?: true;
}

/** Compute providers bond at least 1,000 OGT, recorded under the account's `compute` bond. */
export const OON: ProviderKind = {
  plugin: 'oon',
  purpose: 'compute',
  minimumBond: 1000n * UNIT,
  details: ComputeDetailsSchema,
};

const ComputeProviderSchema = Type.Object(
  {
    operator: Type.String(),
    peerId: Type.String(),
    capabilities: Type.Array(Type.String()),
    max_concurrent_jobs: Type.Integer(),
    bond_ogt: Type.String(),
    registeredAt: Type.Integer({ description: 'block of the registration' }),
  },
  { additionalProperties: false },
);

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
  provides: ['oon-registry'],
  // The EVM runs the OON precompile and calls contracts back: what they change of jobs is written in its transactions and end step.
  stateDelegates: ['evm'],
  init(ctx) {
    const service = new OonService(OON, ctx.use('chain-reader'), ctx.use('tx-submitter'), ctx.use('omp-deals'));
    // The node's storage capability reads code named by CID (for svc_oonEstimate); chain rules never run it.
    const objects = ctx.use('omp-storage').extension;
    service.readObject = (cid, maxBytes, signal) => objects.readVerified(cid, maxBytes, signal);
    ctx.events.on('chain:block', ({ height }) => service.tally.afterBlock(height));
    ctx.events.on('chain:rewound', () => service.tally.rewound());
    return service;
  },
  stop: (service) => service.close(),
  txKinds: (kind) => [...providerTxKinds(OON, kind), ...jobTxKinds(kind)],
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
  genesis: (parameters) => [
    ...unbondingGenesis(parameters),
    ...genesisProviderEntries(OON, parameters),
    ...jobsGenesis(parameters),
  ],
  subscriptions: (kind) => [jobsSubscription(kind)],
  rpc: (method) => [
    ...jobMethods(method),
    method({
      name: 'svc_oonListProviders',
      summary: 'Active compute providers registered on chain (any node answers the same).',
      params: [],
      result: Type.Array(ComputeProviderSchema),
      handler: (_params, { service }) =>
        service.active().map((record) => {
          const details = record.details as unknown as ComputeDetails;
          return {
            operator: record.operator,
            peerId: record.peerId,
            capabilities: details.capabilities,
            max_concurrent_jobs: details.maxConcurrentJobs,
            bond_ogt: formatAmountShort(BigInt(record.bond)),
            registeredAt: record.registeredAt,
          };
        }),
    }),
  ],
});
