import type { ErrorDeclarations } from '../../sdk/errors.js';

/** Staking's refusals. */
export const STAKING_ERRORS = {
  stake_out_of_range: {
    code: -32060,
    description: 'a validator stake outside 15-28 OGT; `data.minimum`, `data.maximum`',
  },
  not_validator: { code: -32061, description: 'a staking action for an address that is not a validator' },
} as const satisfies ErrorDeclarations;
