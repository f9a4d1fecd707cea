import type { ErrorDeclarations } from '../../sdk/errors.js';

/** Errors of a provider's registration and work, declared alike by the compute and storage plugins that share this library. */
export const PROVIDER_ERRORS = {
  not_synced: { code: -32022, description: 'the node has not synced yet' },
  bond_too_low: { code: -32020, description: 'bond below the minimum; `data.minimum`' },
  already_registered: { code: -32023, description: 'a second registration of the same kind on the same node' },
  operator_key_unavailable: { code: -32024, description: 'this node does not hold the operator key' },
  capability_disabled: {
    code: -32025,
    description: 'a provider method on a node whose config switched that capability off',
  },
  not_a_provider: {
    code: -32026,
    description: 'a provider-only request (an upload) to a node that is not an active provider of that kind (HTTP 403)',
    httpStatus: 403,
  },
} as const satisfies ErrorDeclarations;
