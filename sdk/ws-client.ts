import { SvcApi } from './api.js';
import { RpcError } from './errors.js';
import type { JsonRpcReply } from './views.js';
import { authHeaders, authProtocols, environmentToken, toRpcError } from './wire.js';

/** The browser WebSocket API, which the `ws` package also offers (pass it as `WebSocket` on Node 20). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** `ws` takes an options object (headers, ca); a browser's WebSocket takes subprotocols. */
export type WebSocketConstructor = new (
  url: string,
  options?: { headers?: Record<string, string>; ca?: string } | string[],
) => WebSocketLike;

export interface SvcWsClientOptions {
  /** `ws://host:port`; default `ws://127.0.0.1:8545`. */
  readonly url?: string;
  /** Default: the global WebSocket (browsers, Node 22+). On Node 20 pass the `ws` package's export. */
  readonly WebSocket?: WebSocketConstructor;
  /** Node.js with `ws` only: PEM certificate(s) of the authority to trust for a `wss://` node. */
  readonly ca?: string;
  /**
   * Bearer token for a node with guardrails, sent at the handshake with a fresh nonce: as headers
   * through a `WebSocket` passed in (`ws`), as subprotocols through the global one (a browser's).
   */
  readonly token?: string;
  /** Per-call timeout in ms; default 30 000. */
  readonly timeoutMs?: number;
  /** Reconnect after an unexpected close, backing off from 100 ms to 5 s; default true. */
  readonly reconnect?: boolean;
}

export interface HeadEvent {
  height: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  chainId: string;
  proposer: string;
  txRoot: string;
  stateRoot: string;
  receiptRoot: string;
  transactionCount: number;
}

/** A live subscription: an async iterator of its events, or callbacks through `on`. */
export interface Subscription<T> extends AsyncIterable<T> {
  /** The current server-side id (it changes when the client resubscribes after a reconnect). */
  readonly id: string | undefined;
  on(listener: (event: T) => void): () => void;
  unsubscribe(): Promise<void>;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

class LiveSubscription<T> implements Subscription<T> {
  id: string | undefined;
  private readonly listeners = new Set<(event: T) => void>();
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;
  /** Highest head height delivered, for `newHeads` resumption and de-duplication. */
  lastHeight: number | undefined;

  constructor(
    readonly kind: string,
    readonly options: Record<string, unknown> | undefined,
    private readonly end: (sub: LiveSubscription<T>) => Promise<void>,
  ) {}

  /** Options to resubscribe with after a reconnect: `newHeads` continues after the last height seen. */
  resumeOptions(): Record<string, unknown> | undefined {
    if (this.kind === 'newHeads' && this.lastHeight !== undefined)
      return { ...this.options, fromBlock: this.lastHeight + 1 };
    return this.options;
  }

  deliver(event: T): void {
    if (this.ended) return;
    if (this.kind === 'newHeads') {
      const height = (event as { height?: number }).height;
      if (typeof height === 'number') {
        if (this.lastHeight !== undefined && height <= this.lastHeight) return;
        this.lastHeight = height;
      }
    }
    for (const listener of this.listeners) listener(event);
    if (this.waiting) {
      const wake = this.waiting;
      this.waiting = undefined;
      wake({ value: event, done: false });
    } else if (this.listeners.size === 0) {
      this.queue.push(event);
    }
  }

  finish(): void {
    this.ended = true;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
  }

  /** Calls `listener` with every event, starting with those that arrived before it was attached. */
  on(listener: (event: T) => void): () => void {
    this.listeners.add(listener);
    for (const event of this.queue.splice(0)) listener(event);
    return () => this.listeners.delete(listener);
  }

  unsubscribe(): Promise<void> {
    this.finish();
    return this.end(this);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const queued = this.queue.shift();
        if (queued !== undefined) return Promise.resolve({ value: queued, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: async () => {
        await this.unsubscribe();
        return { value: undefined, done: true };
      },
    };
  }
}

/**
 * JSON-RPC over one WebSocket: the same typed methods as the HTTP client, plus subscriptions. After
 * an unexpected close it reconnects with backoff and resubscribes; `newHeads` resumes from the last
 * height seen + 1, so a consumer sees every head exactly once across reconnects.
 */
export class SvcWsClient extends SvcApi {
  readonly url: string;
  private readonly WebSocketImpl: WebSocketConstructor;
  /** The global WebSocket (a browser's): it takes no headers. */
  private readonly browserSocket: boolean;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly reconnect: boolean;
  private socket: WebSocketLike | undefined;
  private opening: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly subscriptions = new Map<string, LiveSubscription<unknown>>();
  private readonly live = new Set<LiveSubscription<unknown>>();
  private readonly unclaimed = new Map<string, unknown[]>();
  private nextId = 1;
  private readonly ca: string | undefined;
  private closedByUser = false;
  private backoffMs = 100;
  /** Times the connection was re-established after a drop. */
  reconnects = 0;

  constructor(options: SvcWsClientOptions | string = {}) {
    super();
    const resolved = typeof options === 'string' ? { url: options } : options;
    this.url = resolved.url ?? 'ws://127.0.0.1:8545';
    const implementation = resolved.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!implementation)
      throw new Error('no WebSocket implementation: pass `WebSocket` (on Node 20: the `ws` package)');
    this.WebSocketImpl = implementation;
    this.browserSocket = resolved.WebSocket === undefined;
    this.token = resolved.token ?? environmentToken();
    this.ca = resolved.ca;
    this.timeoutMs = resolved.timeoutMs ?? 30_000;
    this.reconnect = resolved.reconnect ?? true;
  }

  /** Opens the connection (calls open it on demand too). */
  connect(): Promise<void> {
    if (this.socket && this.socket.readyState === 1) return Promise.resolve();
    this.opening ??= new Promise<void>((resolve, reject) => {
      let socket: WebSocketLike;
      if (this.browserSocket) {
        socket = this.token
          ? new this.WebSocketImpl(this.url, authProtocols(this.token))
          : new this.WebSocketImpl(this.url);
      } else {
        const headers = authHeaders(this.token);
        const options = {
          ...(Object.keys(headers).length > 0 ? { headers } : {}),
          ...(this.ca ? { ca: this.ca } : {}),
        };
        socket =
          Object.keys(options).length > 0
            ? new this.WebSocketImpl(this.url, options)
            : new this.WebSocketImpl(this.url);
      }
      socket.onopen = () => {
        this.socket = socket;
        this.opening = undefined;
        this.backoffMs = 100;
        resolve();
      };
      socket.onmessage = (event) => this.receive(String(event.data));
      socket.onerror = () => undefined;
      socket.onclose = () => {
        const wasOpen = this.socket === socket;
        if (wasOpen) this.socket = undefined;
        this.opening = undefined;
        for (const [id, call] of this.pending) {
          clearTimeout(call.timer);
          call.reject(
            new RpcError(-32603, 'connection_lost', { reason: `the WebSocket to ${this.url} closed before the reply` }),
          );
          this.pending.delete(id);
        }
        if (!wasOpen) reject(new Error(`cannot open a WebSocket to ${this.url}`));
        if (!this.closedByUser && this.reconnect && (wasOpen || this.live.size > 0)) this.scheduleReconnect();
      };
    });
    return this.opening;
  }

  private scheduleReconnect(): void {
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
    setTimeout(() => {
      if (this.closedByUser) return;
      this.connect().then(
        () => {
          this.reconnects++;
          void this.resubscribe();
        },
        () => undefined,
      );
    }, delay);
  }

  private async resubscribe(): Promise<void> {
    this.subscriptions.clear();
    for (const sub of this.live) {
      try {
        const options = sub.resumeOptions();
        this.register(
          await this.rpcCall<string>('svc_subscribe', options === undefined ? [sub.kind] : [sub.kind, options]),
          sub,
        );
      } catch {
        // The connection dropped again; the next reconnect retries.
        return;
      }
    }
  }

  private receive(text: string): void {
    let message: JsonRpcReply<unknown> & { method?: string; params?: { subscription: string; result: unknown } };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (message.method === 'svc_subscription' && message.params) {
      const { subscription, result } = message.params;
      const sub = this.subscriptions.get(subscription);
      if (sub) sub.deliver(result);
      else this.holdUnclaimed(subscription, result);
      return;
    }
    const call = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!call) return;
    this.pending.delete(message.id as number);
    clearTimeout(call.timer);
    if (message.error) call.reject(toRpcError(message.error));
    else call.resolve(message.result);
  }

  /**
   * Events can arrive in the same network read as the `svc_subscribe` reply, before the caller has
   * its id; they wait here (bounded) until the subscription is registered.
   */
  private holdUnclaimed(id: string, result: unknown): void {
    let held = this.unclaimed.get(id);
    if (!held) {
      if (this.unclaimed.size >= 16) this.unclaimed.delete(this.unclaimed.keys().next().value!);
      held = [];
      this.unclaimed.set(id, held);
    }
    if (held.length < 10_000) held.push(result);
  }

  private register(id: string, sub: LiveSubscription<unknown>): void {
    sub.id = id;
    this.subscriptions.set(id, sub);
    const held = this.unclaimed.get(id);
    this.unclaimed.delete(id);
    for (const result of held ?? []) sub.deliver(result);
  }

  override async rpcCall<T>(method: string, params: unknown[] = []): Promise<T> {
    await this.connect();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcError(-32603, 'timeout', { reason: `no reply to ${method} within ${this.timeoutMs} ms` }));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.socket!.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  /** Subscribes to `kind` (`newHeads`, `pendingTransactions`, `receipts`, `syncStatus`, or a plugin's). */
  async subscribe<T = unknown>(kind: string, options?: Record<string, unknown>): Promise<Subscription<T>> {
    const sub = new LiveSubscription<T>(kind, options, (s) => this.end(s as LiveSubscription<unknown>));
    this.register(
      await this.rpcCall<string>('svc_subscribe', options === undefined ? [kind] : [kind, options]),
      sub as LiveSubscription<unknown>,
    );
    this.live.add(sub as LiveSubscription<unknown>);
    return sub;
  }

  /** New heads; with `fromBlock`, stored ones from that height first. */
  subscribeHeads(options: { fromBlock?: number } = {}): Promise<Subscription<HeadEvent>> {
    return this.subscribe<HeadEvent>(
      'newHeads',
      options.fromBlock === undefined ? undefined : { fromBlock: options.fromBlock },
    );
  }

  private async end(sub: LiveSubscription<unknown>): Promise<void> {
    this.live.delete(sub);
    if (!sub.id) return;
    this.subscriptions.delete(sub.id);
    if (this.socket?.readyState === 1) await this.rpcCall<boolean>('svc_unsubscribe', [sub.id]).catch(() => false);
  }

  /** Closes for good: no reconnect; subscriptions end. */
  close(): void {
    this.closedByUser = true;
    for (const sub of this.live) sub.finish();
    this.live.clear();
    this.socket?.close(1000, 'client closed');
  }
}
