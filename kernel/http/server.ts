import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import { handleHttpRpc, refuseMethod } from './json-rpc-over-http.js';
import type { TransportContext } from './transport.js';
import { WebSocketRpc, type WebSocketLimits } from './websocket.js';

/** A PEM certificate chain and its private key: the server speaks HTTPS and WSS. */
export interface TlsCredentials {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

export interface RpcServerOptions {
  readonly host: string;
  readonly port: number;
  readonly tls?: TlsCredentials;
  readonly transport: TransportContext;
  readonly webSocket: WebSocketLimits;
  /** Every route but `/`: health, metrics and the plugins' routes, mounted before listen. */
  readonly routes: Hono<{ Bindings: HttpBindings }>;
  /** Where a browser asking for `/` (GET, HTML) is sent: a plugin's page, if one is mounted. */
  readonly home?: () => string | undefined;
  readonly events: EventBus;
  readonly log: Logger;
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** HTTP and WebSocket on one port: `/` is JSON-RPC, everything else goes to hono. */
export class RpcServer {
  private readonly server: Server;
  private readonly websocket: WebSocketRpc;
  private address: AddressInfo | undefined;

  constructor(private readonly options: RpcServerOptions) {
    const routes = getRequestListener(options.routes.fetch);
    this.websocket = new WebSocketRpc(options.transport, options.webSocket, options.events, options.log);
    const listener: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'OPTIONS' && options.transport.cors.preflight(req, res)) return;
      if (pathOf(req.url) === '/') {
        const home =
          req.method === 'GET' && /\btext\/html\b/.test(req.headers.accept ?? '') ? options.home?.() : undefined;
        if (req.method === 'POST') handleHttpRpc(req, res, options.transport);
        else if (home) res.writeHead(302, { location: home }).end();
        else refuseMethod(req, res);
        return;
      }
      void routes(req, res);
    };
    // A whole request may take 30 minutes (an object upload of a GiB from a slow link takes minutes);
    // its headers must come within 20 s.
    const settings = { keepAliveTimeout: 65_000, requestTimeout: 1_800_000, headersTimeout: 20_000 };
    // HTTPS is the same server behind TLS: requests, upgrades and routes take the same path.
    this.server = options.tls
      ? createTlsServer({ ...settings, cert: options.tls.cert, key: options.tls.key }, listener)
      : createServer(settings, listener);
    this.server.on('upgrade', (req, socket, head) => {
      if (pathOf(req.url) !== '/' || req.headers.upgrade?.toLowerCase() !== 'websocket') {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      this.websocket.upgrade(req, socket, head);
    });
    this.server.on('clientError', (_error, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      else socket.destroy();
    });
  }

  get url(): string {
    if (!this.address) throw new Error('RPC server is not listening');
    const host = this.address.family === 'IPv6' ? `[${this.address.address}]` : this.address.address;
    return `${this.options.tls ? 'https' : 'http'}://${host}:${this.address.port}`;
  }

  get port(): number {
    if (!this.address) throw new Error('RPC server is not listening');
    return this.address.port;
  }

  get webSocketConnections(): number {
    return this.websocket.connections;
  }

  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        reject(
          new Error(`--bind ${this.options.host}:${this.options.port}: cannot listen (${error.code ?? error.message})`),
        );
      };
      this.server.once('error', onError);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', onError);
        this.address = this.server.address() as AddressInfo;
        resolve(this.url);
      });
    });
  }

  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then closes what is left. */
  async close(graceMs = 5000): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await this.websocket.close();
    const timer = setTimeout(() => this.server.closeAllConnections(), graceMs);
    timer.unref();
    await closed;
    clearTimeout(timer);
  }
}
