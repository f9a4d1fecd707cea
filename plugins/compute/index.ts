import { formatAmountShort } from '../../sdk/amount.js';
import type { ProviderService } from '../providers/service.js';
import { providerCapabilityPlugin } from '../providers/capability.js';
import { OON, type ComputeDetails } from '../oon/index.js';
import { ComputeRegistrationSchema, ComputeStatusSchema } from './schemas.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    compute: ProviderService;
  }
}

/**
 * The compute capability (OON) on every node: `svc_oonRegisterNode` bonds this node as a compute
 * provider. A `--role compute` node dedicates its capacity; a validator or full node offers what is idle.
 */
export default providerCapabilityPlugin({
  name: 'compute',
  description: 'compute provider (OON), on every node: registering bonds this node on chain (operator key it holds) and switches the capability on; status, unbonding',
  kind: OON,
  registry: 'oon-registry',
  methods: { register: 'svc_oonRegisterNode', status: 'svc_oonNodeStatus', unregister: 'svc_oonUnregisterNode' },
  registration: ComputeRegistrationSchema,
  status: ComputeStatusSchema,
  details: (registration) => ({ capabilities: registration.capabilities, maxConcurrentJobs: registration.max_concurrent_jobs }),
  view: ({ status, registration, releaseAt }, role) => {
    const details = registration?.details as ComputeDetails | undefined;
    return {
      registered: status !== 'unregistered',
      status,
      operator: registration?.operator ?? null,
      capabilities: details?.capabilities ?? [],
      bond_ogt: registration ? formatAmountShort(BigInt(registration.bond)) : '0',
      max_concurrent_jobs: details?.maxConcurrentJobs ?? 0,
      activeJobs: 0,
      completedJobs: 0,
      dedicated: role === 'compute',
      peerId: registration?.peerId ?? null,
      txHash: registration?.txHash ?? null,
      releaseAt: releaseAt ?? null,
    };
  },
});
