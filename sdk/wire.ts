import { RpcError, type RpcErrorData } from './errors.js';
import type { WireError } from './views.js';

/** A fresh `X-Svc-Nonce`: `<unix-ms>.<22 random URL-safe characters>`. */
export function newNonce(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(22));
  let random = '';
  for (const byte of bytes) random += alphabet[byte & 63];
  return `${Date.now()}.${random}`;
}

export function environmentToken(): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.SVC_RPC_TOKEN || undefined;
}

/** The headers a node with guardrails asks for: the bearer token and a fresh nonce (none without a token). */
export function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}`, 'x-svc-nonce': newNonce() } : {};
}

/** A wire error as RpcError; `status` and `Retry-After` from the HTTP response when there is one. */
export function toRpcError(error: WireError, status?: number, retryAfter?: string | null): RpcError {
  const data: RpcErrorData = { ...error.data, reason: error.data?.reason ?? error.message };
  if (retryAfter && data.retryAfterSeconds === undefined && /^\d+$/.test(retryAfter)) data.retryAfterSeconds = Number(retryAfter);
  return new RpcError(error.code, error.message, data, status !== undefined && status !== 200 ? status : undefined);
}
