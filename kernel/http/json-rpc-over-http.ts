import type { IncomingMessage, ServerResponse } from 'node:http';
import { STANDARD_ERRORS } from '../../sdk/errors.js';
import type { RpcEngine } from '../rpc/engine.js';

export interface HttpRpcOptions {
  readonly engine: RpcEngine;
  readonly maxBody: number;
}

function sendError(res: ServerResponse, status: number, reason: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { ...STANDARD_ERRORS.invalid_request, data: { reason } } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json';
}

/**
 * POST / — JSON-RPC over HTTP, straight on node:http: the hot path skips the Request/Response
 * conversion that the other routes get from hono.
 */
export function handleHttpRpc(req: IncomingMessage, res: ServerResponse, options: HttpRpcOptions): void {
  if (!isJson(req.headers['content-type'])) {
    req.resume();
    sendError(res, 415, 'Content-Type must be application/json');
    return;
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBody) {
    // Don't read what we'll refuse; close so the rest of the body isn't parsed as a next request.
    sendError(res, 413, `body of ${declared} bytes exceeds the limit of ${options.maxBody}`, { connection: 'close' });
    req.destroy();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > options.maxBody) {
      refused = true;
      sendError(res, 413, `body exceeds the limit of ${options.maxBody} bytes`, { connection: 'close' });
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (refused) return;
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
    const request = { transport: 'http' as const, remoteAddress: req.socket.remoteAddress ?? '', headers: req.headers };
    let reply: ReturnType<RpcEngine['handle']>;
    try {
      reply = options.engine.handle(text, request);
    } catch (error) {
      sendError(res, 500, `internal error: ${(error as Error).message}`);
      return;
    }
    if (typeof reply === 'object') {
      reply.then(
        (body) => respond(res, body),
        // The engine turns handler failures into JSON-RPC errors; reaching here is a kernel bug.
        (error: unknown) => !res.headersSent && sendError(res, 500, `internal error: ${(error as Error).message}`),
      );
    } else {
      respond(res, reply);
    }
  });
  req.on('error', () => {
    refused = true;
  });
}

function respond(res: ServerResponse, body: string | undefined): void {
  if (res.destroyed) return;
  if (body === undefined) {
    res.writeHead(204);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function refuseMethod(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  sendError(res, 405, `${req.method ?? 'this method'} is not allowed on /: POST a JSON-RPC request, or GET with Upgrade: websocket`, { allow: 'POST' });
}
