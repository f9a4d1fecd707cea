import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import type { RpcEngine } from '../rpc/engine.js';

export interface WebSocketOptions {
  readonly engine: RpcEngine;
  readonly maxMessage: number;
  /** Bytes queued for a client before it is dropped as too slow. */
  readonly maxBuffered: number;
  readonly events: EventBus;
  readonly log: Logger;
}

/** JSON-RPC over WebSocket on the RPC port: the same engine, one message per request or batch. */
export class WebSocketRpc {
  private readonly server: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();

  constructor(private readonly options: WebSocketOptions) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: options.maxMessage, perMessageDeflate: false });
  }

  get connections(): number {
    return this.sockets.size;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req));
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    this.sockets.add(ws);
    this.options.events.emit('ws:open', { connections: this.sockets.size });
    const request = { transport: 'ws' as const, remoteAddress: req.socket.remoteAddress ?? '', headers: req.headers };
    // Calls run concurrently, but replies leave in the order their requests came in.
    const queue: { reply: string | undefined; done: boolean }[] = [];
    const flush = (): void => {
      while (queue.length > 0 && queue[0]!.done) this.send(ws, queue.shift()!.reply, request.remoteAddress);
    };
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
      let reply: ReturnType<RpcEngine['handle']>;
      try {
        reply = this.options.engine.handle(text, request);
      } catch (error) {
        this.options.log.error({ err: error }, 'websocket request failed');
        return;
      }
      if (typeof reply !== 'object' && queue.length === 0) {
        this.send(ws, reply, request.remoteAddress);
        return;
      }
      const slot: { reply: string | undefined; done: boolean } = { reply: undefined, done: false };
      queue.push(slot);
      Promise.resolve(reply).then(
        (body) => {
          slot.reply = body;
          slot.done = true;
          flush();
        },
        (error: unknown) => {
          this.options.log.error({ err: error }, 'websocket request failed');
          slot.done = true;
          flush();
        },
      );
    });
    ws.on('error', (error) => this.options.log.debug({ err: error }, 'websocket error'));
    ws.on('close', () => {
      this.sockets.delete(ws);
      this.options.events.emit('ws:close', { connections: this.sockets.size });
    });
  }

  private send(ws: WebSocket, reply: string | undefined, remote: string): void {
    if (reply === undefined || ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount + reply.length > this.options.maxBuffered) {
      this.options.log.warn({ remote }, 'websocket client reads too slowly; disconnecting');
      ws.close(1013, 'client too slow: outgoing buffer full');
      ws.terminate();
      return;
    }
    ws.send(reply);
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
