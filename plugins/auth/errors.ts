import type { ErrorDeclarations } from '../../sdk/errors.js';

/** The guardrails' refusals (HTTP 401). */
export const AUTH_ERRORS = {
  unauthorized: { code: -32001, description: 'guardrails on, token missing or wrong (HTTP 401)', httpStatus: 401 },
  nonce_reused: {
    code: -32002,
    description: 'guardrails on, nonce missing, malformed, stale or seen before (HTTP 401)',
    httpStatus: 401,
  },
} as const satisfies ErrorDeclarations;
