import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import type { RequestInfo } from '../rpc/engine.js';
import { refusalBody } from '../rpc/guards.js';
import { admit } from './admission.js';
import type { Connection } from '../plugin.js';
import type { TransportContext } from './transport.js';
import { headersFromProtocols, WS_PROTOCOL } from '../../sdk/wire.js';

export interface WebSocketLimits {
  /** Open connections in all. */
  readonly maxConnections: number;
  /** Open connections per client address. */
  readonly maxConnectionsPerClient: number;
  /** A connection that sends nothing for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Bytes queued for a client before it is dropped as too slow. */
  readonly maxBuffered: number;
}

const SLOW_CLIENT_NOTICE = JSON.stringify({
  jsonrpc: '2.0',
  method: 'svc_subscriptionError',
  params: { reason: 'the client reads too slowly: its outgoing buffer is full, so the node closes the connection' },
});

/** Whether a browser's Origin is the node itself: the host (and port) the request was sent to. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

function refuseUpgrade(socket: Duplex, status: number, reason: string, body = ''): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * JSON-RPC over WebSocket on the RPC port: the same engine and the same request guards, one message
 * per request or batch. The handshake passes the guards once (guardrails: token and nonce); every
 * message passes them again (rate limits), with refusals sent as error replies.
 */
export class WebSocketRpc {
  private readonly server: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private readonly perClient = new Map<string, number>();
  private connectionCount = 0;

  constructor(
    private readonly context: TransportContext,
    private readonly limits: WebSocketLimits,
    private readonly events: EventBus,
    private readonly log: Logger,
  ) {
    // Only our own subprotocol is ever selected: the credentials a browser offers as subprotocols are not echoed back.
    this.server = new WebSocketServer({
      noServer: true,
      maxPayload: context.maxBody,
      perMessageDeflate: false,
      handleProtocols: (offered) => (offered.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
    });
  }

  get connections(): number {
    return this.sockets.size;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const origin = req.headers.origin;
    // A page the node serves itself (the explorer) opens its socket from the node's own origin: never cross-origin.
    if (origin !== undefined && !sameOrigin(origin, req.headers.host) && !this.context.cors.allows(origin))
      return refuseUpgrade(socket, 403, 'Forbidden');
    const remoteAddress = req.socket.remoteAddress ?? '';
    const clientAddress = this.context.clients.resolve(remoteAddress, req.headers['x-forwarded-for']);
    if (this.sockets.size >= this.limits.maxConnections) return refuseUpgrade(socket, 503, 'Service Unavailable');
    if ((this.perClient.get(clientAddress) ?? 0) >= this.limits.maxConnectionsPerClient)
      return refuseUpgrade(socket, 429, 'Too Many Requests');
    // A browser's credentials come as subprotocols (it cannot set headers here); real headers win.
    const offered = (req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const headers = offered.length > 0 ? { ...headersFromProtocols(offered), ...req.headers } : req.headers;
    const { principal, refusal } = admit(this.context, {
      transport: 'ws',
      phase: 'handshake',
      remoteAddress,
      headers,
      clientAddress,
    });
    if (refusal)
      return refuseUpgrade(
        socket,
        refusal.status,
        refusal.status === 401 ? 'Unauthorized' : 'Refused',
        refusalBody(refusal),
      );
    this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req, clientAddress, principal));
  }

  private accept(ws: WebSocket, req: IncomingMessage, clientAddress: string, principal: string | undefined): void {
    this.sockets.add(ws);
    const closeListeners: (() => void)[] = [];
    let closed = false;
    // Replies written in the same turn of the event loop (a pipelining client's messages arrive many
    // per read) leave in one write: the socket is corked until the turn's microtasks are done.
    const socket = req.socket;
    let corked = false;
    const out = (text: string | undefined): boolean => {
      if (!corked && text !== undefined) {
        corked = true;
        socket.cork();
        process.nextTick(() => {
          corked = false;
          socket.uncork();
        });
      }
      return this.send(ws, text, clientAddress);
    };
    const connection: Connection = {
      id: `${clientAddress}#${++this.connectionCount}`,
      send: (text) => !closed && out(text),
      onClose: (listener) => (closed ? listener() : void closeListeners.push(listener)),
      get closed() {
        return closed;
      },
    };
    this.perClient.set(clientAddress, (this.perClient.get(clientAddress) ?? 0) + 1);
    this.events.emit('ws:open', { connections: this.sockets.size });
    const remoteAddress = req.socket.remoteAddress ?? '';
    let idle = setTimeout(() => ws.close(1000, 'idle timeout'), this.limits.idleTimeoutMs);
    // Calls run concurrently, but replies leave in the order their requests came in.
    const queue: { reply: string | undefined; done: boolean }[] = [];
    const flush = (): void => {
      while (queue.length > 0 && queue[0]!.done) out(queue.shift()!.reply);
    };
    const reply = (body: string | undefined | Promise<string | undefined>): void => {
      if (typeof body !== 'object' && queue.length === 0) {
        out(body);
        return;
      }
      const slot: { reply: string | undefined; done: boolean } = { reply: undefined, done: false };
      queue.push(slot);
      Promise.resolve(body).then(
        (text) => {
          slot.reply = text;
          slot.done = true;
          flush();
        },
        (error: unknown) => {
          this.log.error({ err: error }, 'websocket request failed');
          slot.done = true;
          flush();
        },
      );
    };
    ws.on('message', (data, isBinary) => {
      clearTimeout(idle);
      idle = setTimeout(() => ws.close(1000, 'idle timeout'), this.limits.idleTimeoutMs);
      const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
      const parsed = this.context.engine.parse(text);
      if (this.context.guards.size > 0) {
        const { refusal, headers } = admit(this.context, {
          transport: 'ws',
          phase: 'request',
          remoteAddress,
          headers: req.headers,
          parsed,
          clientAddress,
          principal,
        });
        // No headers per message: what rate limits would put in headers travels in the error's data.
        if (refusal) return reply(refusalBody(refusal, headerData(headers)));
      }
      const request: RequestInfo = {
        transport: 'ws',
        remoteAddress,
        clientAddress,
        principal,
        headers: req.headers,
        response: {},
        connection,
      };
      try {
        reply(this.context.engine.execute(parsed, request));
      } catch (error) {
        this.log.error({ err: error }, 'websocket request failed');
      }
    });
    ws.on('error', (error) => this.log.debug({ err: error }, 'websocket error'));
    ws.on('close', () => {
      clearTimeout(idle);
      closed = true;
      for (const listener of closeListeners.splice(0)) {
        try {
          listener();
        } catch (error) {
          this.log.error({ err: error }, 'a WebSocket close listener failed');
        }
      }
      this.sockets.delete(ws);
      const left = (this.perClient.get(clientAddress) ?? 1) - 1;
      if (left <= 0) this.perClient.delete(clientAddress);
      else this.perClient.set(clientAddress, left);
      this.events.emit('ws:close', { connections: this.sockets.size });
    });
  }

  /** Sends a frame unless the client has fallen too far behind; then it gets a last notice and is dropped. */
  private send(ws: WebSocket, text: string | undefined, client: string): boolean {
    if (ws.readyState !== ws.OPEN) return false;
    if (text === undefined) return true;
    if (ws.bufferedAmount + text.length > this.limits.maxBuffered) {
      this.log.warn({ client, buffered: ws.bufferedAmount }, 'websocket client reads too slowly; disconnecting');
      ws.send(SLOW_CLIENT_NOTICE);
      ws.close(1013, 'client too slow: outgoing buffer full');
      // Don't wait for a reader that isn't reading: drop the connection after a short grace.
      setTimeout(() => ws.terminate(), 1000).unref();
      return false;
    }
    ws.send(text);
    return true;
  }

  /** Closes every connection with 1001 (going away). */
  async close(): Promise<void> {
    const closing = [...this.sockets].map(
      (ws) =>
        new Promise<void>((resolve) => {
          ws.once('close', () => resolve());
          ws.close(1001, 'node shutting down');
          setTimeout(() => {
            ws.terminate();
            resolve();
          }, 1000).unref();
        }),
    );
    await Promise.all(closing);
    this.server.close();
  }
}

/** `X-RateLimit-Remaining: 3` -> `{ rateLimitRemaining: 3 }`, for refusals sent over WebSocket. */
function headerData(headers: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name
      .toLowerCase()
      .replace(/^x-/, '')
      .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    out[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}
