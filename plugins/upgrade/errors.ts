import type { ErrorDeclarations } from '../../sdk/errors.js';

/** The upgrade plans' refusals (a signer outside the validator set is staking's `not_validator`). */
export const UPGRADE_ERRORS = {
  upgrade_refused: {
    code: -32090,
    description:
      'an upgrade plan or approval refused: a version not above the newest scheduled, a height not ahead of the chain and of the last upgrade, another plan pending, an approval given twice; `data.reason`',
  },
} as const satisfies ErrorDeclarations;
