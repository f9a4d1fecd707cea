import type { ErrorDeclarations } from '../../sdk/errors.js';

/**
 * The errors of the kernel itself and of what every plugin shares: a parameter that fails its schema
 * or names no address, something unknown or pruned from history, a subscription over HTTP, a rate
 * limit. A plugin's own errors are declared by that plugin (`errors` in its definition).
 */
export const KERNEL_ERRORS = {
  invalid_address: { code: -32602, description: 'an address parameter is not `svc1` + 40 hex characters' },
  invalid_params: { code: -32602, description: 'a parameter fails its schema; `data.field` names it' },
  not_found: {
    code: -32030,
    description: 'what the call names is unknown here (a hash, an id, a CID); `data.reason` says which',
  },
  pruned: { code: -32031, description: "historical data older than the node's history window, on a non-archive node" },
  subscriptions_need_websocket: { code: -32006, description: 'subscriptions are served over WebSocket only' },
  rate_limited: {
    code: -32005,
    description: 'rate limit exceeded (HTTP 429); `data.retryAfterSeconds`',
    httpStatus: 429,
  },
} as const satisfies ErrorDeclarations;
