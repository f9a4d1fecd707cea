import { RpcError } from './errors.js';

export interface SvcClientOptions {
  /** Node URL; default `http://127.0.0.1:8545`. */
  readonly url?: string;
  /** Per-request timeout in ms; default 30 000. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

interface JsonRpcReply<T> {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: T;
  error?: { code: number; message: string; data?: { reason: string; [key: string]: unknown } };
}

export interface BlockView {
  height: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  chainId: string;
  proposer: string;
  proposerKey: string;
  txRoot: string;
  stateRoot: string;
  receiptRoot: string;
  signature: string;
  transactions: string[];
}

/** A JSON-RPC client of svc-node over HTTP. Runs in Node 20+ and browsers (global fetch). */
export class SvcClient {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private nextId = 1;

  constructor(options: SvcClientOptions | string = {}) {
    const resolved = typeof options === 'string' ? { url: options } : options;
    this.url = resolved.url ?? 'http://127.0.0.1:8545';
    this.timeoutMs = resolved.timeoutMs ?? 30_000;
    this.fetchImpl = resolved.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Calls any method; a JSON-RPC error is thrown as RpcError. */
  async rpcCall<T>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const response = await this.fetchImpl(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let reply: JsonRpcReply<T>;
    try {
      reply = JSON.parse(text) as JsonRpcReply<T>;
    } catch {
      throw new RpcError(-32603, 'bad_response', { reason: `HTTP ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`, status: response.status });
    }
    if (reply.error) throw new RpcError(reply.error.code, reply.error.message, { reason: reply.error.data?.reason ?? reply.error.message, ...reply.error.data, status: response.status });
    return reply.result as T;
  }

  blockNumber(): Promise<number> {
    return this.rpcCall<number>('svc_blockNumber');
  }

  getBlockByNumber(height: number | 'latest'): Promise<BlockView> {
    return this.rpcCall<BlockView>('svc_getBlockByNumber', [height]);
  }

  getBlockByHash(hash: string): Promise<BlockView> {
    return this.rpcCall<BlockView>('svc_getBlockByHash', [hash]);
  }
}
