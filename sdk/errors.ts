import { accountAddress, isValidEthAddress } from './address.js';
/**
 * The wire's error table: JSON-RPC 2.0 standard errors and the node's domain errors.
 * A domain error travels with `message` = its snake_case name and a stable `code`; `data.reason`
 * is a human sentence. This table is the single source for the node, the SDK and the docs.
 */
export const STANDARD_ERRORS = {
  parse_error: { code: -32700, message: 'Parse error' },
  invalid_request: { code: -32600, message: 'Invalid Request' },
  method_not_found: { code: -32601, message: 'Method not found' },
  invalid_params_standard: { code: -32602, message: 'Invalid params' },
  internal_error: { code: -32603, message: 'Internal error' },
} as const;

export const DOMAIN_ERRORS = {
  invalid_address: { code: -32602, description: 'an address parameter is not `svc1` + 40 hex characters' },
  invalid_params: { code: -32602, description: 'a parameter fails its schema; `data.field` names it' },
  unauthorized: { code: -32001, description: 'guardrails on, token missing or wrong (HTTP 401)', httpStatus: 401 },
  nonce_reused: {
    code: -32002,
    description: 'guardrails on, nonce missing, malformed, stale or seen before (HTTP 401)',
    httpStatus: 401,
  },
  rate_limited: {
    code: -32005,
    description: 'rate limit exceeded (HTTP 429); `data.retryAfterSeconds`',
    httpStatus: 429,
  },
  cooldown_active: {
    code: -32010,
    description: 'faucet asked again for the same address within the cooldown; `data.retryAfterSeconds`',
  },
  faucet_unavailable: { code: -32011, description: 'faucet not enabled on this node or network' },
  bond_too_low: { code: -32020, description: 'bond below the minimum; `data.minimum`' },
  insufficient_funds: { code: -32021, description: "the account's balance can't cover the bond or transfer" },
  not_synced: { code: -32022, description: 'the node has not synced yet' },
  already_registered: { code: -32023, description: 'a second registration of the same kind on the same node' },
  operator_key_unavailable: { code: -32024, description: 'this node does not hold the operator key' },
  not_found: { code: -32030, description: 'block, transaction, receipt, job or object unknown' },
  pruned: { code: -32031, description: "historical data older than the node's history window, on a non-archive node" },
  subscriptions_need_websocket: { code: -32006, description: 'subscriptions are served over WebSocket only' },
  not_a_provider: {
    code: -32026,
    description: 'a provider-only request (an upload) to a node that is not an active provider of that kind (HTTP 403)',
    httpStatus: 403,
  },
  dev_mode_off: {
    code: -32027,
    description: 'a dev-mode method (evm_mine, evm_increaseTime, …) on a node not started with --dev',
  },
  peers_connected: {
    code: -32028,
    description: 'evm_revert on a dev node with peers connected: they hold the blocks a revert would undo',
  },
  capability_disabled: {
    code: -32025,
    description: 'a provider method on a node whose config switched that capability off',
  },
  job_rejected: {
    code: -32040,
    description:
      'a compute job refused at submission (module invalid, refused import or feature, over a limit); `data` says which',
  },
  unsupported_format: {
    code: -32050,
    description: 'an object whose media type the storage node does not serve (PUT /omp/objects answers HTTP 415)',
  },
  capacity_exceeded: {
    code: -32051,
    description: "an object or deal beyond the node's storage capacity (PUT /omp/objects answers HTTP 507)",
  },
  object_too_large: {
    code: -32052,
    description: "an upload over the node's size limit for one object (PUT /omp/objects answers HTTP 413)",
  },
  range_not_satisfiable: {
    code: -32053,
    description: 'a byte range that starts past the end of the object (GET /ipfs/<cid> answers HTTP 416)',
  },
  stake_out_of_range: {
    code: -32060,
    description: 'a validator stake outside 15-28 OGT; `data.minimum`, `data.maximum`',
  },
  not_validator: { code: -32061, description: 'a staking action for an address that is not a validator' },
  invalid_transaction: {
    code: -32070,
    description: 'the raw transaction is malformed, of an unknown kind, or has an invalid payload or signer',
  },
  invalid_signature: { code: -32071, description: "the transaction's signature does not verify" },
  wrong_chain_id: { code: -32072, description: 'the transaction is signed for another chain id' },
  nonce_too_low: { code: -32073, description: 'the nonce was already used by a mined transaction; `data.expected`' },
  nonce_gap: { code: -32074, description: 'the nonce is too far ahead of the account nonce; `data.expected`' },
  nonce_conflict: {
    code: -32075,
    description:
      'another pending transaction of the sender has this nonce, and this one does not raise both its fees by 10% to replace it (a kind without fees is never replaced)',
  },
  already_known: { code: -32076, description: 'this transaction is already pending or mined' },
  mempool_full: { code: -32077, description: 'the mempool holds as many transactions as it may; retry later' },
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
} as const;

export type DomainErrorName = keyof typeof DOMAIN_ERRORS;

export interface RpcErrorData {
  reason: string;
  [key: string]: unknown;
}

/** A JSON-RPC error as it travels on the wire, thrown by node handlers and by the SDK alike. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: RpcErrorData | undefined;
  /** The HTTP status this error travels with, when not 200 (401, 429); not part of the JSON body. */
  readonly httpStatus: number | undefined;

  constructor(code: number, message: string, data?: RpcErrorData, httpStatus?: number) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
    this.httpStatus = httpStatus;
  }

  toJSON(): { code: number; message: string; data?: RpcErrorData } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Builds the domain error `name` with its table code; `extra` lands in `data` beside `reason`. */
export function domainError(name: DomainErrorName, reason: string, extra?: Record<string, unknown>): RpcError {
  const entry: { code: number; httpStatus?: number } = DOMAIN_ERRORS[name];
  return new RpcError(entry.code, name, { reason, ...extra }, entry.httpStatus);
}

export function isRpcError(value: unknown): value is RpcError {
  return value instanceof RpcError;
}

/** Whether `value` is the domain error `name` (by its table code and name, not by reading a sentence). */
export function isDomainError(value: unknown, ...names: DomainErrorName[]): value is RpcError {
  return (
    value instanceof RpcError && names.some((name) => value.message === name && value.code === DOMAIN_ERRORS[name].code)
  );
}

/** Why `value` is refused as the address `field`; for an `0x…` address, with the same account's `svc1` name. */
export function invalidAddressReason(field: string, value: unknown): string {
  return `${field} is not a valid address (svc1 followed by 40 hex characters)${isValidEthAddress(value) ? `; ${value} is the account ${accountAddress(value)}` : ''}`;
}
