import type { IncomingMessage, ServerResponse } from 'node:http';
import { STANDARD_ERRORS } from '../../sdk/errors.js';
import { refusalBody } from '../rpc/guards.js';
import { admit } from './admission.js';
import type { RequestInfo } from '../rpc/engine.js';
import type { TransportContext } from './transport.js';

function sendError(res: ServerResponse, status: number, reason: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { ...STANDARD_ERRORS.invalid_request, data: { reason } },
  });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  // What clients send (viem, ethers, curl's users): no split and case fold per request.
  if (contentType === 'application/json') return true;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json';
}

function respond(
  res: ServerResponse,
  body: string | undefined,
  status: number | undefined,
  headers: Record<string, string>,
): void {
  if (res.destroyed) return;
  if (body === undefined) {
    res.writeHead(204, headers);
    res.end();
    return;
  }
  // A flat [name, value, …] list: node copies it as is, where an object is walked key by key.
  const flat: string[] = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))];
  for (const name in headers) flat.push(name, headers[name]!);
  res.writeHead(status ?? 200, flat);
  // As a string: node joins it to the head it sends. Bytes went as a chunk of their own (an allocation
  // and a second buffer to write per response): 1.05 of that build's rate (median of nine alternating
  // rounds, BENCHMARKS.md).
  res.end(body);
}

/**
 * POST / — JSON-RPC over HTTP, straight on node:http: the hot path skips the Request/Response
 * conversion that the other routes get from hono. Order: content type and size, body, parse, request
 * guards (auth, rate limits), then the calls.
 */
export function handleHttpRpc(req: IncomingMessage, res: ServerResponse, context: TransportContext): void {
  const cors = context.cors.headers(req.headers.origin);
  if (!isJson(req.headers['content-type'])) {
    req.resume();
    sendError(res, 415, 'Content-Type must be application/json', cors);
    return;
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > context.maxBody) {
    // Don't read what we'll refuse; close so the rest of the body isn't parsed as a next request.
    sendError(res, 413, `body of ${declared} bytes exceeds the limit of ${context.maxBody}`, {
      ...cors,
      connection: 'close',
    });
    req.destroy();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > context.maxBody) {
      refused = true;
      sendError(res, 413, `body exceeds the limit of ${context.maxBody} bytes`, { ...cors, connection: 'close' });
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (refused) return;
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
    const parsed = context.engine.parse(text);
    const remoteAddress = req.socket.remoteAddress ?? '';
    const { clientAddress, principal, headers, refusal } = admit(context, {
      transport: 'http',
      phase: 'request',
      remoteAddress,
      headers: req.headers,
      parsed,
    });
    if (refusal) {
      respond(res, refusalBody(refusal), refusal.status, headers);
      return;
    }
    const request: RequestInfo = {
      transport: 'http',
      remoteAddress,
      clientAddress,
      principal,
      headers: req.headers,
      response: {},
    };
    let reply: ReturnType<TransportContext['engine']['handle']>;
    try {
      reply = context.engine.execute(parsed, request);
    } catch (error) {
      sendError(res, 500, `internal error: ${(error as Error).message}`, headers);
      return;
    }
    if (typeof reply === 'object') {
      reply.then(
        (body) => respond(res, body, request.response.status, headers),
        // The engine turns handler failures into JSON-RPC errors; reaching here is a kernel bug.
        (error: unknown) =>
          !res.headersSent && sendError(res, 500, `internal error: ${(error as Error).message}`, headers),
      );
    } else {
      respond(res, reply, request.response.status, headers);
    }
  });
  req.on('error', () => {
    refused = true;
  });
}

export function refuseMethod(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  sendError(
    res,
    405,
    `${req.method ?? 'this method'} is not allowed on /: POST a JSON-RPC request, or GET with Upgrade: websocket`,
    { allow: 'POST' },
  );
}
