import type { IncomingHttpHeaders } from 'node:http';
import type { GuardRefusal, GuardRequest } from '../plugin.js';
import type { GuardChain } from '../rpc/guards.js';
import type { ParsedRequest } from '../rpc/engine.js';
import type { ClientAddressResolver } from './client-address.js';
import type { CorsPolicy } from './cors.js';
import { guardRequest } from './transport.js';

export interface AdmissionContext {
  readonly guards: GuardChain;
  readonly clients: ClientAddressResolver;
  readonly cors: CorsPolicy;
}

export interface AdmissionInput {
  readonly transport: 'http' | 'ws';
  readonly phase: GuardRequest['phase'];
  readonly remoteAddress: string;
  readonly headers: IncomingHttpHeaders;
  readonly parsed?: ParsedRequest;
  /** Known already (a WebSocket message: from its handshake). */
  readonly clientAddress?: string;
  readonly principal?: string;
}

/** Who is asking, and whether they get in. */
export interface Admission {
  readonly clientAddress: string;
  readonly principal: string | undefined;
  /** For the response: CORS, and what the guards add (rate-limit headers), with a refusal's own. */
  readonly headers: Readonly<Record<string, string>>;
  readonly refusal: GuardRefusal | undefined;
}

/**
 * The one way in, for every entrance — a JSON-RPC body over HTTP, a WebSocket handshake, a
 * WebSocket message, a protected route: the client's address, the request guards in plugin order,
 * and the response headers that go with the outcome. Each transport only shapes the answer.
 */
export function admit(context: AdmissionContext, input: AdmissionInput): Admission {
  const clientAddress =
    input.clientAddress ?? context.clients.resolve(input.remoteAddress, input.headers['x-forwarded-for']);
  const cors = context.cors.headers(input.headers.origin);
  if (context.guards.size === 0)
    return { clientAddress, principal: input.principal, headers: cors, refusal: undefined };
  const request = guardRequest(
    input.transport,
    input.phase,
    clientAddress,
    input.headers,
    input.parsed,
    input.principal,
  );
  const refusal = context.guards.run(request);
  const guarded = Object.keys(cors).length === 0 ? request.responseHeaders : { ...cors, ...request.responseHeaders };
  return {
    clientAddress,
    principal: request.principal,
    headers: refusal?.headers ? { ...guarded, ...refusal.headers } : guarded,
    refusal,
  };
}
