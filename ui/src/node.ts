import { authHeaders, SvcClient, SvcWsClient } from '../../sdk/index.js';

/** Where the page keeps the token it was given under guardrails: this tab only, gone when it closes. */
const TOKEN_KEY = 'svc-rpc-token';

/** The node that serves this page: JSON-RPC over HTTP on its origin, and WebSocket on the same port. */
export let http: SvcClient;
export let ws: SvcWsClient;
/** The token the page sends (guardrails), if it was given one. */
export let token: string | undefined;

function connect(next: string | undefined): void {
  token = next;
  http = new SvcClient({ url: location.origin, ...(next ? { token: next } : {}) });
  ws?.close();
  ws = new SvcWsClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`,
    ...(next ? { token: next } : {}),
  });
}
connect(sessionStorage.getItem(TOKEN_KEY) ?? undefined);

/** From now on, calls carry this token (each with a fresh nonce); kept for the tab's later pages. */
export function setToken(next: string): void {
  sessionStorage.setItem(TOKEN_KEY, next);
  connect(next);
}

/**
 * A URL for an element (an image, a video, a link) to a route of the node: the path itself without a
 * token; with one (guardrails protect the route, and an element cannot send a header), the bytes
 * fetched with it, as a blob URL the caller revokes.
 */
export async function protectedUrl(path: string): Promise<{ url: string; revoke(): void }> {
  if (!token) return { url: path, revoke: () => undefined };
  const response = await fetch(path, { headers: authHeaders(token) });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  return { url, revoke: () => URL.revokeObjectURL(url) };
}
