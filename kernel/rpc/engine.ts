import { performance } from 'node:perf_hooks';
import { RpcError, STANDARD_ERRORS, isRpcError } from '../../sdk/errors.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import type { CallContext } from '../plugin.js';
import type { MethodRegistry } from './registry.js';

export type RpcId = string | number | null;

/** Where a request came from; handed to handlers as their CallContext. */
export interface RequestInfo {
  readonly transport: 'http' | 'ws';
  readonly remoteAddress: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A parsed HTTP body or WebSocket message: either an immediate error reply, or calls to run. */
export type ParsedRequest =
  | { readonly kind: 'invalid'; readonly body: string }
  | { readonly kind: 'single'; readonly call: unknown }
  | { readonly kind: 'batch'; readonly calls: readonly unknown[] };

export interface EngineOptions {
  readonly registry: MethodRegistry;
  readonly maxBatch: number;
  /** Check every result against its method's schema (tests and development). */
  readonly validateResults: boolean;
  readonly log: Logger;
  readonly events: EventBus;
}

const ID_NULL = 'null';

function errorBody(idJson: string, error: { code: number; message: string; data?: unknown }): string {
  return `{"jsonrpc":"2.0","id":${idJson},"error":${JSON.stringify(error)}}`;
}

function standardError(name: keyof typeof STANDARD_ERRORS, reason: string): { code: number; message: string; data: { reason: string } } {
  return { ...STANDARD_ERRORS[name], data: { reason } };
}

function isValidId(id: unknown): id is RpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** The one JSON-RPC 2.0 engine; HTTP and WebSocket both hand it text and send back what it returns. */
export class RpcEngine {
  constructor(private readonly options: EngineOptions) {}

  /** Number of calls a parsed request holds (what rate limits count). */
  static callCount(parsed: ParsedRequest): number {
    return parsed.kind === 'batch' ? parsed.calls.length : parsed.kind === 'single' ? 1 : 0;
  }

  parse(text: string): ParsedRequest {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { kind: 'invalid', body: errorBody(ID_NULL, standardError('parse_error', `body is not valid JSON: ${(error as Error).message}`)) };
    }
    if (!Array.isArray(value)) return { kind: 'single', call: value };
    if (value.length === 0) return { kind: 'invalid', body: errorBody(ID_NULL, standardError('invalid_request', 'a batch must not be empty')) };
    if (value.length > this.options.maxBatch) {
      return {
        kind: 'invalid',
        body: errorBody(ID_NULL, standardError('invalid_request', `a batch of ${value.length} calls exceeds the limit of ${this.options.maxBatch}`)),
      };
    }
    return { kind: 'batch', calls: value };
  }

  /** Runs the calls; undefined means nothing is sent back (notifications only). */
  async execute(parsed: ParsedRequest, request: RequestInfo): Promise<string | undefined> {
    if (parsed.kind === 'invalid') return parsed.body;
    if (parsed.kind === 'single') return this.call(parsed.call, request);
    const replies = await Promise.all(parsed.calls.map((call) => this.call(call, request)));
    const bodies = replies.filter((reply): reply is string => reply !== undefined);
    return bodies.length === 0 ? undefined : `[${bodies.join(',')}]`;
  }

  async handle(text: string, request: RequestInfo): Promise<string | undefined> {
    return this.execute(this.parse(text), request);
  }

  private async call(raw: unknown, request: RequestInfo): Promise<string | undefined> {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return errorBody(ID_NULL, standardError('invalid_request', 'a request must be a JSON object'));
    }
    const message = raw as Record<string, unknown>;
    const hasId = 'id' in message;
    const idJson = hasId && isValidId(message.id) ? JSON.stringify(message.id) : ID_NULL;
    const invalid = this.checkShape(message);
    if (invalid) return errorBody(idJson, standardError('invalid_request', invalid));

    const name = message.method as string;
    const params = message.params === undefined ? [] : message.params;
    const started = performance.now();
    let outcome = 'ok';
    let body: string;
    try {
      const result = await this.dispatch(name, params, request);
      body = `{"jsonrpc":"2.0","id":${idJson},"result":${result === undefined ? 'null' : JSON.stringify(result)}}`;
    } catch (error) {
      const wire = this.toWireError(error, name);
      outcome = wire.message;
      body = errorBody(idJson, wire);
    }
    const known = this.options.registry.has(name);
    this.options.events.emit('rpc:call', { method: known ? name : '(unknown)', outcome, seconds: (performance.now() - started) / 1000, transport: request.transport });
    return hasId ? body : undefined;
  }

  private checkShape(message: Record<string, unknown>): string | undefined {
    if (message.jsonrpc !== '2.0') return '"jsonrpc" must be exactly "2.0"';
    if (typeof message.method !== 'string') return '"method" must be a string';
    if ('id' in message && !isValidId(message.id)) return '"id" must be a string, a number or null';
    if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null)) return '"params" must be an array';
    return undefined;
  }

  private async dispatch(name: string, params: unknown, request: RequestInfo): Promise<unknown> {
    const method = this.options.registry.get(name);
    if (!method) throw new RpcError(STANDARD_ERRORS.method_not_found.code, STANDARD_ERRORS.method_not_found.message, { reason: `method "${name.slice(0, 100)}" does not exist on this node` });
    if (!Array.isArray(params)) {
      throw new RpcError(-32602, 'invalid_params', { reason: 'params must be a positional array', field: 'params' });
    }
    const invalid = method.params.check(params);
    if (invalid) throw invalid;
    const call: CallContext<unknown> = { service: method.service, transport: request.transport, remoteAddress: request.remoteAddress, headers: request.headers };
    const padded = params.length < method.spec.params.length ? [...params, ...new Array<undefined>(method.spec.params.length - params.length)] : params;
    const result = await method.spec.handler(padded, call);
    if (this.options.validateResults && !method.result.Check(result)) {
      const errors = method.result.Errors(result).slice(0, 3);
      throw new Error(`result of ${name} does not match its schema: ${JSON.stringify(errors)}`);
    }
    return result;
  }

  private toWireError(error: unknown, method: string): { code: number; message: string; data?: unknown } {
    if (isRpcError(error)) return error.toJSON();
    this.options.log.error({ err: error, method }, `internal error in ${method}`);
    return standardError('internal_error', 'the node failed to process this call; see its log');
  }
}
