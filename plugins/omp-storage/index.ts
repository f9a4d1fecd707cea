import { normalizeAddress } from '../../sdk/address.js';
import { definePlugin, param } from '../../kernel/plugin.js';
import { bondUnits, decimalText } from '../providers/inputs.js';
import { formatAmountShort } from '../../sdk/amount.js';
import { ProviderService, type StatusView } from '../providers/service.js';
import { OMP, type StorageDetails } from '../omp/index.js';
import { StorageRegistrationSchema, StorageStatusSchema } from './schemas.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    'omp-storage': ProviderService;
  }
}

function statusView(view: StatusView) {
  const registration = view.registration;
  const details = registration?.details as StorageDetails | undefined;
  return {
    registered: view.status !== 'unregistered',
    status: view.status,
    operator: registration?.operator ?? null,
    storage_capacity_gb: details ? Number(details.capacityGb) : 0,
    bond_ogt: registration ? formatAmountShort(BigInt(registration.bond)) : '0',
    supported_formats: details?.formats ?? [],
    usedBytes: 0,
    objects: 0,
    peerId: registration?.peerId ?? null,
    txHash: registration?.txHash ?? null,
    releaseAt: view.releaseAt ?? null,
  };
}

export default definePlugin({
  name: 'omp-storage',
  version: '1.0.0',
  description: 'storage provider (OMP): registers this node on chain with an OGT bond signed by an operator key it holds; status, unbonding',
  requires: ['chain', 'keys', 'p2p', 'omp-registry'],
  provides: ['omp-storage'],
  namespaces: [{ name: 'omp-storage.node', description: '"registration" -> JSON of this node\'s own registration (operator, bond, details, tx hashes)' }],
  async init(ctx) {
    const p2p = ctx.use('p2p');
    const service = new ProviderService(OMP, ctx.use('chain'), ctx.use('keys'), () => p2p.peerId, ctx.namespace('omp-storage.node'), ctx.log);
    await service.load();
    return service;
  },
  rpc: (method) => [
    method({
      name: 'svc_ompRegisterStorageNode',
      summary: "Registers this node as a storage provider: a bond transaction signed by the operator's key (held by this node) moves bond_ogt OGT into its bonded balance.",
      params: [param('registration', StorageRegistrationSchema)],
      result: StorageStatusSchema,
      errors: ['invalid_address', 'invalid_params', 'bond_too_low', 'insufficient_funds', 'not_synced', 'already_registered', 'operator_key_unavailable'],
      handler: async ([registration], { service }) => {
        const bond = bondUnits(registration.bond_ogt);
        const capacityGb = decimalText(registration.storage_capacity_gb, 'storage_capacity_gb');
        await service.register(normalizeAddress(registration.operator), bond, { capacityGb, formats: registration.supported_formats });
        return statusView(await service.status());
      },
    }),
    method({
      name: 'svc_ompStorageStatus',
      summary: "This node's storage registration: unregistered, pending (bond not yet in a block), active, or unbonding.",
      params: [],
      result: StorageStatusSchema,
      handler: async (_params, { service }) => statusView(await service.status()),
    }),
    method({
      name: 'svc_ompUnregisterStorageNode',
      summary: "Starts unbonding this node's storage registration; the bond returns to the operator after the chain's unbonding period.",
      params: [],
      result: StorageStatusSchema,
      errors: ['not_found', 'invalid_params', 'operator_key_unavailable'],
      handler: async (_params, { service }) => {
        await service.unregister();
        return statusView(await service.status());
      },
    }),
  ],
});
