import { isValidAddress, normalizeAddress, type Address } from './address.js';
import { formatAmount, parseUnits, type Asset } from './amount.js';
import { RpcError, DOMAIN_ERRORS, type RpcErrorData } from './errors.js';
import type { KeyPair } from './keys.js';
import { rawTransaction, signTransaction, transferPayload, type Payload, type SignedTransaction } from './transaction.js';

export interface SvcClientOptions {
  /** Node URL; default `http://127.0.0.1:8545`. */
  readonly url?: string;
  /** Per-request timeout in ms; default 30 000. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  /** Bearer token for a node with guardrails; default: the SVC_RPC_TOKEN environment variable where there is one. */
  readonly token?: string;
}

/** A fresh `X-Svc-Nonce`: `<unix-ms>.<22 random URL-safe characters>`. */
export function newNonce(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(22));
  let random = '';
  for (const byte of bytes) random += alphabet[byte & 63];
  return `${Date.now()}.${random}`;
}

function environmentToken(): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.SVC_RPC_TOKEN || undefined;
}

interface WireError {
  code: number;
  message: string;
  data?: { reason: string; [key: string]: unknown };
}

interface JsonRpcReply<T> {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: T;
  error?: WireError;
}

export interface BlockView {
  height: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  chainId: string;
  proposer: Address;
  proposerKey: string;
  txRoot: string;
  stateRoot: string;
  receiptRoot: string;
  signature: string;
  transactions: string[];
}

export interface Balance {
  address: Address;
  blockNumber: number;
  /** Base units. */
  omc: bigint;
  ogt: bigint;
  /** Human amounts with 18 fractional digits, e.g. "10.000000000000000000". */
  balanceOMC: string;
  balanceOGT: string;
}

export interface TransactionView {
  hash: string;
  from: Address;
  chainId: string;
  kind: string;
  nonce: number;
  publicKey: string;
  signature: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'mined';
  blockNumber: number | null;
  index: number | null;
}

export interface Receipt {
  transactionHash: string;
  blockNumber: number;
  blockHash: string;
  index: number;
  from: Address;
  kind: string;
  status: 'success' | 'failed';
  error?: { name: string; reason: string };
}

export interface ChainInfo {
  network: string;
  chainId: string;
  genesisHash: string;
  validator: Address;
  head: { height: number; hash: string; timestamp: number };
  archive: boolean;
  historyBlocks: number;
  oldestStateBlock: number;
  pendingTransactions: number;
}

export interface NodeInfo {
  version: string;
  network: string;
  chainId: string;
  role: string;
  plugins: { name: string; version: string }[];
  capabilities: string[];
  peerId: string;
  operator: Address;
  synced: boolean;
}

export interface FaucetGrant {
  omcMinted: string;
  ogtMinted: string;
  status: 'funded';
  txHash: string;
}

export interface FaucetStatus {
  address: Address;
  eligible: boolean;
  nextEligibleAt: number | null;
  retryAfterSeconds: number;
}

export interface BatchCall {
  readonly method: string;
  readonly params?: unknown[];
}

export type BatchResult<T = unknown> = { ok: true; result: T } | { ok: false; error: RpcError };

function toRpcError(error: WireError, status?: number, retryAfter?: string | null): RpcError {
  const data: RpcErrorData = { ...error.data, reason: error.data?.reason ?? error.message };
  if (retryAfter && data.retryAfterSeconds === undefined && /^\d+$/.test(retryAfter)) data.retryAfterSeconds = Number(retryAfter);
  return new RpcError(error.code, error.message, data, status !== undefined && status !== 200 ? status : undefined);
}

function checkAddress(value: string, field = 'address'): Address {
  if (!isValidAddress(value)) throw new RpcError(DOMAIN_ERRORS.invalid_address.code, 'invalid_address', { reason: `${field} is not a valid address (svc1 followed by 40 hex characters)`, field });
  return normalizeAddress(value);
}

function checkHash(value: string, field = 'hash'): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) throw new RpcError(DOMAIN_ERRORS.invalid_params.code, 'invalid_params', { reason: `${field} must be a 32-byte 0x hex hash`, field });
  return value.toLowerCase();
}

function checkBlockTag(value: number | 'latest', field = 'blockNumber'): number | 'latest' {
  if (value !== 'latest' && !(Number.isSafeInteger(value) && value >= 0)) throw new RpcError(DOMAIN_ERRORS.invalid_params.code, 'invalid_params', { reason: `${field} must be a non-negative integer or "latest"`, field });
  return value;
}

/**
 * A typed JSON-RPC client of svc-node over HTTP. Runs in Node 20+ and in browsers (global fetch, no
 * Node built-ins). Typed methods check their parameters before sending; errors are RpcError with the
 * node's `code`, `message` (the snake_case name) and `data`.
 */
export class SvcClient {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly token: string | undefined;
  private nextId = 1;

  constructor(options: SvcClientOptions | string = {}) {
    const resolved = typeof options === 'string' ? { url: options } : options;
    this.url = resolved.url ?? 'http://127.0.0.1:8545';
    this.timeoutMs = resolved.timeoutMs ?? 30_000;
    this.fetchImpl = resolved.fetch ?? globalThis.fetch.bind(globalThis);
    this.token = resolved.token ?? environmentToken();
  }

  /** Headers of every request: the bearer token and a fresh nonce when a token is set. */
  authHeaders(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}`, 'x-svc-nonce': newNonce() } : {};
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
      const detail = (error as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (cause?.code ?? cause?.message ?? (error as Error).message);
      throw new Error(`cannot reach ${this.url}: ${detail}`, { cause: error });
    }
    const text = await response.text();
    const retryAfter = response.headers.get('retry-after');
    if (response.status === 204) return { status: 204, value: undefined, retryAfter };
    try {
      return { status: response.status, value: JSON.parse(text) as unknown, retryAfter };
    } catch {
      throw new RpcError(-32603, 'bad_response', { reason: `HTTP ${response.status} with a body that is not JSON: ${text.slice(0, 200)}` }, response.status);
    }
  }

  /** Calls any method; a JSON-RPC error is thrown as RpcError. */
  async rpcCall<T>(method: string, params: unknown[] = []): Promise<T> {
    const { status, value, retryAfter } = await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params });
    const reply = value as JsonRpcReply<T>;
    if (reply.error) throw toRpcError(reply.error, status, retryAfter);
    return reply.result as T;
  }

  /** Several calls in one request; results come back in call order, each a result or an RpcError. */
  async batch<T = unknown>(calls: readonly BatchCall[]): Promise<BatchResult<T>[]> {
    const first = this.nextId;
    this.nextId += calls.length;
    const { status, value, retryAfter } = await this.post(calls.map((call, i) => ({ jsonrpc: '2.0', id: first + i, method: call.method, params: call.params ?? [] })));
    if (!Array.isArray(value)) {
      const error = (value as JsonRpcReply<T>).error;
      throw error ? toRpcError(error, status, retryAfter) : new RpcError(-32603, 'bad_response', { reason: 'a batch reply must be an array' });
    }
    const byId = new Map((value as JsonRpcReply<T>[]).map((reply) => [reply.id, reply]));
    return calls.map((_, i) => {
      const reply = byId.get(first + i);
      if (!reply) return { ok: false, error: new RpcError(-32603, 'bad_response', { reason: `no reply for call ${i}` }) };
      return reply.error ? { ok: false, error: toRpcError(reply.error, status) } : { ok: true, result: reply.result as T };
    });
  }

  blockNumber(): Promise<number> {
    return this.rpcCall<number>('svc_blockNumber');
  }

  async getBlockByNumber(height: number | 'latest'): Promise<BlockView> {
    return this.rpcCall<BlockView>('svc_getBlockByNumber', [checkBlockTag(height)]);
  }

  async getBlockByHash(hash: string): Promise<BlockView> {
    return this.rpcCall<BlockView>('svc_getBlockByHash', [checkHash(hash)]);
  }

  /** Balances at the head, or at a past block (within the node's history window). */
  async getBalance(address: string, blockNumber?: number | 'latest'): Promise<Balance> {
    const params: unknown[] = [checkAddress(address)];
    if (blockNumber !== undefined) params.push(checkBlockTag(blockNumber));
    const wire = await this.rpcCall<{ address: Address; blockNumber: number; omc: string; ogt: string }>('svc_getBalance', params);
    const omc = parseUnits(wire.omc);
    const ogt = parseUnits(wire.ogt);
    return { address: wire.address, blockNumber: wire.blockNumber, omc, ogt, balanceOMC: formatAmount(omc), balanceOGT: formatAmount(ogt) };
  }

  async getNonce(address: string): Promise<number> {
    return this.rpcCall<number>('svc_getNonce', [checkAddress(address)]);
  }

  sendRawTransaction(raw: string): Promise<string> {
    return this.rpcCall<string>('svc_sendRawTransaction', [raw]);
  }

  sendTransaction(tx: SignedTransaction): Promise<string> {
    return this.sendRawTransaction(rawTransaction(tx));
  }

  /** Signs a transaction of any kind with `key` (nonce and chain id fetched when not given) and sends it. */
  async signAndSend(key: KeyPair, kind: string, payload: Payload, options: { nonce?: number; chainId?: string } = {}): Promise<SignedTransaction> {
    const [nonce, chainId] = await Promise.all([options.nonce ?? this.getNonce(key.address), options.chainId ?? this.chainInfo().then((info) => info.chainId)]);
    const tx = signTransaction({ chainId, kind, nonce, payload }, key);
    await this.sendTransaction(tx);
    return tx;
  }

  /** Sends `amount` base units of `asset` from `key`'s account to `to`. */
  async transfer(key: KeyPair, to: string, asset: Asset, amount: bigint, options: { nonce?: number; chainId?: string } = {}): Promise<SignedTransaction> {
    return this.signAndSend(key, 'transfer', transferPayload(checkAddress(to, 'to'), asset, amount), options);
  }

  async getTransaction(hash: string): Promise<TransactionView> {
    return this.rpcCall<TransactionView>('svc_getTransaction', [checkHash(hash)]);
  }

  async getTransactionReceipt(hash: string): Promise<Receipt> {
    return this.rpcCall<Receipt>('svc_getTransactionReceipt', [checkHash(hash)]);
  }

  /** Resolves with the receipt once a block includes the transaction; rejects after `timeoutMs`. */
  async waitForTransaction(hash: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<Receipt> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    const poll = options.pollMs ?? 250;
    for (;;) {
      try {
        return await this.getTransactionReceipt(hash);
      } catch (error) {
        if (!(error instanceof RpcError) || error.message !== 'not_found') throw error;
      }
      if (Date.now() + poll > deadline) throw new RpcError(DOMAIN_ERRORS.not_found.code, 'not_found', { reason: `transaction ${hash} was not mined within ${options.timeoutMs ?? 60_000} ms`, hash });
      await new Promise((resolve) => setTimeout(resolve, poll));
    }
  }

  chainInfo(): Promise<ChainInfo> {
    return this.rpcCall<ChainInfo>('svc_chainInfo');
  }

  nodeInfo(): Promise<NodeInfo> {
    return this.rpcCall<NodeInfo>('svc_nodeInfo');
  }

  async faucetRequest(address: string): Promise<FaucetGrant> {
    return this.rpcCall<FaucetGrant>('faucet_request', [checkAddress(address)]);
  }

  async faucetStatus(address: string): Promise<FaucetStatus> {
    return this.rpcCall<FaucetStatus>('faucet_status', [checkAddress(address)]);
  }

  /** The node's OpenRPC document. */
  discover(): Promise<{ openrpc: string; methods: { name: string }[] }> {
    return this.rpcCall('rpc.discover');
  }
}
