import { OMP, type StorageDetailsSchema } from './provider-kind.js';
import { listProvidersMethod } from '../providers/list-method.js';
import { genesisProviderEntries } from '../providers/genesis-providers.js';
import Type from 'typebox';
import { definePlugin } from '../../kernel/plugin.js';
import { providerTxKinds, releaseBonds, unbondingGenesis } from '../providers/registry.js';
import type { ProviderRegistry } from '../providers/registry-service.js';
import { dealTxKinds } from './deals/tx-kinds.js';
import { dealsEndBlock } from './deals/end-block.js';
import { dealMethods } from './deals/rpc.js';
import { dealRetention, dealSchedule } from './deals/state.js';
import { ompPrecompile } from './precompile.js';
import { devDealKind } from './deals/dev-controls.js';
import { OmpRegistry, type OmpDeals } from './deals/capability.js';
import { OBJECT_ERRORS } from '../../objects/errors.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    'omp-registry': ProviderRegistry<typeof StorageDetailsSchema>;
    'omp-deals': OmpDeals;
  }
}

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
  config: Type.Object({ dev: Type.Boolean({ default: false }) }, { additionalProperties: false, default: {} }),
  configFromNode: (node) => ({ dev: node.dev === true }),
  provides: ['omp-registry', 'omp-deals'],
  // The EVM runs the OMP precompile: the deals contracts make are written in its transactions.
  stateDelegates: ['evm'],
  init: (ctx) => {
    const registry = new OmpRegistry(OMP, ctx.use('chain-reader'));
    registry.dev = ctx.config.dev;
    return registry;
  },
  txKinds: (kind) => [...providerTxKinds(OMP, kind), ...dealTxKinds(kind, OMP), devDealKind(kind, OMP)],
  precompiles: (precompile) => [ompPrecompile(precompile, OMP)],
  endBlock(ctx) {
    releaseBonds(ctx, OMP);
    dealsEndBlock(ctx, OMP);
  },
  // A pending deal's acceptance deadline (its proof periods are counted in blocks, not time).
  nextDue: (read) => dealSchedule.nextDue(read),
  genesis: (parameters) => [
    ...unbondingGenesis(parameters),
    ...genesisProviderEntries(OMP, parameters),
    ...dealRetention.genesis(parameters),
  ],
  rpc: (method) => [
    ...dealMethods(method),
    listProvidersMethod(method, {
      name: 'svc_ompListProviders',
      summary: 'Active storage providers registered on chain (any node answers the same).',
      fields: { supported_formats: Type.Array(Type.String()), storage_capacity_gb: Type.Number() },
      view: (details) => ({ supported_formats: details.formats, storage_capacity_gb: Number(details.capacityGb) }),
    }),
  ],
});
