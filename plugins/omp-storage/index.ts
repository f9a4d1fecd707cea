import { formatAmountShort } from '../../sdk/amount.js';
import type { ProviderService } from '../providers/service.js';
import { providerCapabilityPlugin } from '../providers/capability.js';
import { decimalText } from '../providers/inputs.js';
import { OMP, type StorageDetails } from '../omp/index.js';
import { StorageRegistrationSchema, StorageStatusSchema } from './schemas.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    'omp-storage': ProviderService;
  }
}

/** The storage capability (OMP) on every node: an add-on to any role, switched on by `svc_ompRegisterStorageNode`. */
export default providerCapabilityPlugin({
  name: 'omp-storage',
  description: 'storage provider (OMP), on every node: registering bonds this node on chain (operator key it holds) and switches the capability on; status, unbonding',
  kind: OMP,
  registry: 'omp-registry',
  methods: { register: 'svc_ompRegisterStorageNode', status: 'svc_ompStorageStatus', unregister: 'svc_ompUnregisterStorageNode' },
  registration: StorageRegistrationSchema,
  status: StorageStatusSchema,
  details: (registration) => ({ capacityGb: decimalText(registration.storage_capacity_gb, 'storage_capacity_gb'), formats: registration.supported_formats }),
  view: ({ status, registration, releaseAt }) => {
    const details = registration?.details as StorageDetails | undefined;
    return {
      registered: status !== 'unregistered',
      status,
      operator: registration?.operator ?? null,
      storage_capacity_gb: details ? Number(details.capacityGb) : 0,
      bond_ogt: registration ? formatAmountShort(BigInt(registration.bond)) : '0',
      supported_formats: details?.formats ?? [],
      usedBytes: 0,
      objects: 0,
      peerId: registration?.peerId ?? null,
      txHash: registration?.txHash ?? null,
      releaseAt: releaseAt ?? null,
    };
  },
});
