import type { ErrorDeclarations } from '../../sdk/errors.js';

/** Outcomes of an EVM call or transaction answered as errors by the svc_ methods. */
export const EVM_ERRORS = {
  execution_reverted: {
    code: -32080,
    description:
      'an EVM call reverted; `data.revert` holds the revert bytes, `data.reason` the decoded Error(string), Panic or custom error when known',
  },
  out_of_gas: { code: -32081, description: 'an EVM call or transaction ran out of gas at its limit' },
  fee_too_low: { code: -32082, description: "an EVM transaction's fee cap is below the base fee" },
  code_too_large: {
    code: -32083,
    description:
      'contract code over the EIP-170 limit (24,576 bytes) or init code over the EIP-3860 limit (49,152 bytes)',
  },
} as const satisfies ErrorDeclarations;
