import type { ErrorDeclarations } from '../../sdk/errors.js';

/** The faucet's refusals. */
export const FAUCET_ERRORS = {
  cooldown_active: {
    code: -32010,
    description: 'faucet asked again for the same address within the cooldown; `data.retryAfterSeconds`',
  },
  faucet_unavailable: { code: -32011, description: 'faucet not enabled on this node or network' },
} as const satisfies ErrorDeclarations;
