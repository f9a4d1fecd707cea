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

/**
 * The WebSocket subprotocol of svc JSON-RPC. A browser cannot set headers on a WebSocket handshake,
 * only offer subprotocols, so its credentials travel as two more: `svc.bearer.<token, base64url>` and
 * `svc.nonce.<nonce>`. The node reads them as the headers they stand for and selects this one.
 */
export const WS_PROTOCOL = 'svc.jsonrpc';
const BEARER_PROTOCOL = 'svc.bearer.';
const NONCE_PROTOCOL = 'svc.nonce.';

const base64url = (text: string): string =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const fromBase64url = (text: string): string =>
  new TextDecoder().decode(Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));

/** The subprotocols a browser offers for a WebSocket handshake: ours, and the credentials when there is a token. */
export function authProtocols(token: string | undefined): string[] {
  return token
    ? [WS_PROTOCOL, `${BEARER_PROTOCOL}${base64url(token)}`, `${NONCE_PROTOCOL}${newNonce()}`]
    : [WS_PROTOCOL];
}

/** The `authorization` and `x-svc-nonce` headers that credentials offered as subprotocols stand for (none when absent or malformed). */
export function headersFromProtocols(offered: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const protocol of offered) {
    if (protocol.startsWith(BEARER_PROTOCOL)) {
      try {
        headers.authorization = `Bearer ${fromBase64url(protocol.slice(BEARER_PROTOCOL.length))}`;
      } catch {
        // Not base64url: no token, and the guard says so.
      }
    } else if (protocol.startsWith(NONCE_PROTOCOL)) headers['x-svc-nonce'] = protocol.slice(NONCE_PROTOCOL.length);
  }
  return headers;
}

/** A wire error as RpcError; `status` and `Retry-After` from the HTTP response when there is one. */
export function toRpcError(error: WireError, status?: number, retryAfter?: string | null): RpcError {
  const data: RpcErrorData = { ...error.data, reason: error.data?.reason ?? error.message };
  if (retryAfter && data.retryAfterSeconds === undefined && /^\d+$/.test(retryAfter))
    data.retryAfterSeconds = Number(retryAfter);
  return new RpcError(error.code, error.message, data, status !== undefined && status !== 200 ? status : undefined);
}
