import type { IncomingHttpHeaders } from 'node:http';
import type { GuardRequest } from '../plugin.js';
import type { GuardChain } from '../rpc/guards.js';
import { RpcEngine, type ParsedRequest } from '../rpc/engine.js';
import type { ClientAddressResolver } from './client-address.js';
import type { CorsPolicy } from './cors.js';

/** What both transports share: the engine, the request guards, client addresses, CORS. */
export interface TransportContext {
  readonly engine: RpcEngine;
  readonly guards: GuardChain;
  readonly clients: ClientAddressResolver;
  readonly cors: CorsPolicy;
  readonly maxBody: number;
}

export function methodsOf(parsed: ParsedRequest): string[] {
  const name = (call: unknown): string => {
    const method = (call as { method?: unknown } | null)?.method;
    return typeof method === 'string' ? method : '';
  };
  if (parsed.kind === 'single') return [name(parsed.call)];
  if (parsed.kind === 'batch') return parsed.calls.map(name);
  return [];
}

export function guardRequest(
  transport: 'http' | 'ws',
  phase: GuardRequest['phase'],
  clientAddress: string,
  headers: IncomingHttpHeaders,
  parsed?: ParsedRequest,
  principal?: string,
): GuardRequest {
  let methods: string[] | undefined;
  return {
    transport,
    phase,
    clientAddress,
    headers,
    calls: parsed ? RpcEngine.callCount(parsed) : 0,
    // Most guards never look at method names; list them only when one does.
    get methods(): string[] {
      return (methods ??= parsed ? methodsOf(parsed) : []);
    },
    principal,
    responseHeaders: {},
  };
}
