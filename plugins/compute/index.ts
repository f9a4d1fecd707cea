import { normalizeAddress } from '../../sdk/address.js';
import { definePlugin, param } from '../../kernel/plugin.js';
import { bondUnits } from '../providers/inputs.js';
import { formatAmountShort } from '../../sdk/amount.js';
import { ProviderService, type StatusView } from '../providers/service.js';
import { OON, type ComputeDetails } from '../oon/index.js';
import { ComputeRegistrationSchema, ComputeStatusSchema } from './schemas.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    compute: ProviderService;
  }
}

function statusView(view: StatusView) {
  const registration = view.registration;
  const details = registration?.details as ComputeDetails | undefined;
  return {
    registered: view.status !== 'unregistered',
    status: view.status,
    operator: registration?.operator ?? null,
    capabilities: details?.capabilities ?? [],
    bond_ogt: registration ? formatAmountShort(BigInt(registration.bond)) : '0',
    max_concurrent_jobs: details?.maxConcurrentJobs ?? 0,
    activeJobs: 0,
    completedJobs: 0,
    peerId: registration?.peerId ?? null,
    txHash: registration?.txHash ?? null,
    releaseAt: view.releaseAt ?? null,
  };
}

export default definePlugin({
  name: 'compute',
  version: '1.0.0',
  description: 'compute provider (OON): registers this node on chain with an OGT bond signed by an operator key it holds; status, unbonding',
  requires: ['chain', 'keys', 'p2p', 'oon-registry'],
  provides: ['compute'],
  namespaces: [{ name: 'compute.node', description: '"registration" -> JSON of this node\'s own registration (operator, bond, details, tx hashes)' }],
  async init(ctx) {
    const p2p = ctx.use('p2p');
    const service = new ProviderService(OON, ctx.use('chain'), ctx.use('keys'), () => p2p.peerId, ctx.namespace('compute.node'), ctx.log);
    await service.load();
    return service;
  },
  rpc: (method) => [
    method({
      name: 'svc_oonRegisterNode',
      summary: "Registers this node as a compute provider: a bond transaction signed by the operator's key (held by this node) moves bond_ogt OGT into its bonded balance.",
      params: [param('registration', ComputeRegistrationSchema)],
      result: ComputeStatusSchema,
      errors: ['invalid_address', 'invalid_params', 'bond_too_low', 'insufficient_funds', 'not_synced', 'already_registered', 'operator_key_unavailable'],
      handler: async ([registration], { service }) => {
        const bond = bondUnits(registration.bond_ogt);
        await service.register(normalizeAddress(registration.operator), bond, { capabilities: registration.capabilities, maxConcurrentJobs: registration.max_concurrent_jobs });
        return statusView(await service.status());
      },
    }),
    method({
      name: 'svc_oonNodeStatus',
      summary: "This node's compute registration: unregistered, pending (bond not yet in a block), active, or unbonding.",
      params: [],
      result: ComputeStatusSchema,
      handler: async (_params, { service }) => statusView(await service.status()),
    }),
    method({
      name: 'svc_oonUnregisterNode',
      summary: "Starts unbonding this node's compute registration; the bond returns to the operator after the chain's unbonding period.",
      params: [],
      result: ComputeStatusSchema,
      errors: ['not_found', 'invalid_params', 'operator_key_unavailable'],
      handler: async (_params, { service }) => {
        await service.unregister();
        return statusView(await service.status());
      },
    }),
  ],
});
