import { SvcApi } from './api.js';
import { DOMAIN_ERRORS, RpcError } from './errors.js';
import type { UploadedObject } from './views.js';
import { authHeaders, environmentToken, toRpcError } from './wire.js';
import type { JsonRpcReply } from './views.js';

export interface SvcClientOptions {
  /** Node URL; default `http://127.0.0.1:8545`. */
  readonly url?: string;
  /** Per-request timeout in ms; default 30 000. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  /** Bearer token for a node with guardrails; default: the SVC_RPC_TOKEN environment variable where there is one. */
  readonly token?: string;
  /**
   * Node.js only: PEM certificate(s) of the authority to trust for an `https://` node, such as a
   * devnet's self-signed certificate (the `svc` CLI reads it from `--ca-file` or SVC_CA_FILE).
   * Browsers use their own trust store.
   */
  readonly ca?: string;
}

export interface BatchCall {
  readonly method: string;
  readonly params?: unknown[];
}

export type BatchResult<T = unknown> = { ok: true; result: T } | { ok: false; error: RpcError };

/** A fetch that trusts `ca` (undici, loaded only when asked for, so browser bundles never need it). */
function fetchTrusting(ca: string): typeof fetch {
  const moduleName = 'undici';
  const loaded = import(/* @vite-ignore */ moduleName) as Promise<{
    Agent: new (options: unknown) => unknown;
    fetch: (url: string, init: unknown) => Promise<Response>;
  }>;
  const ready = loaded.then(({ Agent, fetch: undiciFetch }) => ({
    dispatcher: new Agent({ connect: { ca } }),
    undiciFetch,
  }));
  return (async (url: string, init?: RequestInit) => {
    const { dispatcher, undiciFetch } = await ready;
    return undiciFetch(url, { ...init, dispatcher });
  }) as typeof fetch;
}

/** An object route's refusal `{ error, message }` as an RpcError of the same name. */
function objectError(answer: { error?: string; message?: string }, status: number): RpcError {
  const name = (answer.error ?? 'internal_error') as keyof typeof DOMAIN_ERRORS;
  return new RpcError(
    DOMAIN_ERRORS[name]?.code ?? -32603,
    name,
    { reason: answer.message ?? `HTTP ${status}` },
    status,
  );
}

/**
 * A typed JSON-RPC client of svc-node over HTTP. Runs in Node 20+ and in browsers (global fetch, no
 * Node built-ins). Typed methods check their parameters before sending; errors are RpcError with the
 * node's `code`, `message` (the snake_case name) and `data`.
 */
export class SvcClient extends SvcApi {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly token: string | undefined;
  private nextId = 1;

  constructor(options: SvcClientOptions | string = {}) {
    super();
    const resolved = typeof options === 'string' ? { url: options } : options;
    this.url = resolved.url ?? 'http://127.0.0.1:8545';
    this.timeoutMs = resolved.timeoutMs ?? 30_000;
    this.fetchImpl = resolved.fetch ?? (resolved.ca ? fetchTrusting(resolved.ca) : globalThis.fetch.bind(globalThis));
    this.token = resolved.token ?? environmentToken();
  }

  /** Headers of every request: the bearer token and a fresh nonce when a token is set. */
  authHeaders(): Record<string, string> {
    return authHeaders(this.token);
  }

  private async post(body: unknown): Promise<{ status: number; value: unknown; retryAfter: string | null }> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.authHeaders() },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const code = cause?.code;
      const detail =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : code && /CERT|VERIFY|SIGNATURE|ISSUER/.test(code)
            ? `its TLS certificate is not trusted (${code})`
            : (code ?? cause?.message ?? (error as Error).message);
      throw new Error(`cannot reach ${this.url}: ${detail}`, { cause: error });
    }
    const text = await response.text();
    const retryAfter = response.headers.get('retry-after');
    if (response.status === 204) return { status: 204, value: undefined, retryAfter };
    try {
      return { status: response.status, value: JSON.parse(text) as unknown, retryAfter };
    } catch {
      throw new RpcError(
        -32603,
        'bad_response',
        { reason: `HTTP ${response.status} with a body that is not JSON: ${text.slice(0, 200)}` },
        response.status,
      );
    }
  }

  /** Calls any method; a JSON-RPC error is thrown as RpcError. */
  override async rpcCall<T>(method: string, params: unknown[] = []): Promise<T> {
    const { status, value, retryAfter } = await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params });
    const reply = value as JsonRpcReply<T>;
    if (reply.error) throw toRpcError(reply.error, status, retryAfter);
    return reply.result as T;
  }

  /** Several calls in one request; results come back in call order, each a result or an RpcError. */
  /**
   * Uploads an object to a storage node (`PUT /omp/objects`): its CID, size, sniffed type and
   * commitment root — what `createDeal` needs. Refusals (413, 415, 507, 403) are RpcErrors named as the
   * node names them.
   */
  async uploadObject(
    body: Uint8Array | ReadableStream<Uint8Array>,
    options: { contentType?: string } = {},
  ): Promise<UploadedObject> {
    const response = await this.fetchImpl(`${this.url}/omp/objects`, {
      method: 'PUT',
      headers: { ...this.authHeaders(), ...(options.contentType ? { 'content-type': options.contentType } : {}) },
      body,
      duplex: 'half',
    } as RequestInit);
    const answer = (await response.json()) as UploadedObject & { error?: string; message?: string };
    if (!response.ok) throw objectError(answer, response.status);
    return answer;
  }

  /** An object's bytes from a node that holds it (`GET /ipfs/<cid>`), or one byte range of them (`{ start, end }`, end inclusive). */
  async fetchObject(cid: string, options: { range?: { start: number; end?: number } } = {}): Promise<Uint8Array> {
    const headers: Record<string, string> = this.authHeaders();
    if (options.range) headers.range = `bytes=${options.range.start}-${options.range.end ?? ''}`;
    const response = await this.fetchImpl(`${this.url}/ipfs/${encodeURIComponent(cid)}`, { headers });
    if (!response.ok)
      throw objectError((await response.json()) as { error?: string; message?: string }, response.status);
    return new Uint8Array(await response.arrayBuffer());
  }

  async batch<T = unknown>(calls: readonly BatchCall[]): Promise<BatchResult<T>[]> {
    const first = this.nextId;
    this.nextId += calls.length;
    const { status, value, retryAfter } = await this.post(
      calls.map((call, i) => ({ jsonrpc: '2.0', id: first + i, method: call.method, params: call.params ?? [] })),
    );
    if (!Array.isArray(value)) {
      const error = (value as JsonRpcReply<T>).error;
      throw error
        ? toRpcError(error, status, retryAfter)
        : new RpcError(-32603, 'bad_response', { reason: 'a batch reply must be an array' });
    }
    const byId = new Map((value as JsonRpcReply<T>[]).map((reply) => [reply.id, reply]));
    return calls.map((_, i) => {
      const reply = byId.get(first + i);
      if (!reply)
        return { ok: false, error: new RpcError(-32603, 'bad_response', { reason: `no reply for call ${i}` }) };
      return reply.error
        ? { ok: false, error: toRpcError(reply.error, status) }
        : { ok: true, result: reply.result as T };
    });
  }
}
