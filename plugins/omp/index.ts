import { genesisProviderEntries } from '../providers/genesis-providers.js';
import Type from 'typebox';
import { definePlugin } from '../../kernel/plugin.js';
import { providerTxKinds, releaseBonds, unbondingGenesis, type ProviderKind } from '../providers/registry.js';
import type { ProviderRegistry } from '../providers/registry-service.js';
import { formatAmountShort, UNIT } from '../../sdk/amount.js';
import { dealTxKinds } from './deals/tx-kinds.js';
import { dealsEndBlock } from './deals/end-block.js';
import { dealMethods } from './deals/rpc.js';
import { dealRetention } from './deals/state.js';
import { ompPrecompile } from './precompile.js';
import { OmpRegistry, type OmpDeals } from './deals/capability.js';
import { OBJECT_ERRORS } from '../../objects/errors.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    'omp-registry': ProviderRegistry;
    'omp-deals': OmpDeals;
  }
}

/** The media formats a storage provider may serve (the chain rules own them; the storage capability uses them). */
export const FORMATS = ['image', 'video', 'document'] as const;
export const Formats = Type.Array(Type.Union(FORMATS.map((f) => Type.Literal(f))), {
  minItems: 1,
  uniqueItems: true,
  description: 'distinct media formats: image, video, document',
});

/** What a storage registration records on chain besides the bond (capacity as decimal text: no floats in consensus). */
export const StorageDetailsSchema = Type.Object(
  { capacityGb: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), formats: Formats },
  { additionalProperties: false },
);

export interface StorageDetails {
  capacityGb: string;
  formats: string[];
}

/** Storage providers bond at least 500 OGT, recorded under the account's `storage` bond. */
export const OMP: ProviderKind = {
  plugin: 'omp',
  purpose: 'storage',
  minimumBond: 500n * UNIT,
  details: StorageDetailsSchema,
};

const StorageProviderSchema = Type.Object(
  {
    operator: Type.String(),
    peerId: Type.String(),
    supported_formats: Type.Array(Type.String()),
    storage_capacity_gb: Type.Number(),
    bond_ogt: Type.String(),
    registeredAt: Type.Integer({ description: 'block of the registration' }),
  },
  { additionalProperties: false },
);

/**
 * The storage-provider registry as chain rules: `omp.register` / `omp.unregister`, bond release at the
 * end of each block, and the provider list. Every node loads it; the `omp-storage` plugin adds this
 * node's own registration on top.
 */
export default definePlugin({
  name: 'omp',
  errors: OBJECT_ERRORS,
  version: '1.0.0',
  description:
    'storage (OMP) chain rules on every node: provider registry (omp.register / omp.unregister, bond release) and deals (omp.createDeal, omp.acceptDeal; refunds, closing at the end of the term); deal and object queries',
  requires: ['chain-reader'],
  provides: ['omp-registry', 'omp-deals'],
  // The EVM runs the OMP precompile: the deals contracts make are written in its transactions.
  stateDelegates: ['evm'],
  init: (ctx) => new OmpRegistry(OMP, ctx.use('chain-reader')),
  txKinds: (kind) => [...providerTxKinds(OMP, kind), ...dealTxKinds(kind, OMP)],
  precompiles: (precompile) => [ompPrecompile(precompile, OMP)],
  endBlock(ctx) {
    releaseBonds(ctx, OMP);
    dealsEndBlock(ctx, OMP);
  },
  genesis: (parameters) => [
    ...unbondingGenesis(parameters),
    ...genesisProviderEntries(OMP, parameters),
    ...dealRetention.genesis(parameters),
  ],
  rpc: (method) => [
    ...dealMethods(method),
    method({
      name: 'svc_ompListProviders',
      summary: 'Active storage providers registered on chain (any node answers the same).',
      params: [],
      result: Type.Array(StorageProviderSchema),
      handler: (_params, { service }) =>
        service.active().map((record) => {
          const details = record.details as unknown as StorageDetails;
          return {
            operator: record.operator,
            peerId: record.peerId,
            supported_formats: details.formats,
            storage_capacity_gb: Number(details.capacityGb),
            bond_ogt: formatAmountShort(BigInt(record.bond)),
            registeredAt: record.registeredAt,
          };
        }),
    }),
  ],
});
