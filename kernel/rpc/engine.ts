import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { RpcError, STANDARD_ERRORS, isRpcError } from '../../sdk/errors.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import type { CallContext, Connection, RpcCallRecord } from '../plugin.js';
import type { MethodRegistry, RegisteredMethod } from './registry.js';
import { isPromise } from '../is-promise.js';
import { ethereumShaped, isEthereumMethod, type WireError } from './ethereum-errors.js';

export type RpcId = string | number | null;

/** Where a request came from; handed to handlers as their CallContext. */
export interface RequestInfo {
  readonly transport: 'http' | 'ws';
  readonly remoteAddress: string;
  readonly clientAddress: string;
  readonly principal: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Filled in while the request runs: an HTTP status other than 200 that a single call's error asks for. */
  readonly response: { status?: number };
  /** The WebSocket connection, when the request came on one. */
  readonly connection?: Connection;
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
const ASYNC_CALLS_PER_TURN = 8;
const EMPTY: unknown[] = [];

export type Reply = string | undefined;

function joinBatch(replies: readonly Reply[]): Reply {
  let joined = '';
  for (const reply of replies) if (reply !== undefined) joined += joined === '' ? `[${reply}` : `,${reply}`;
  return joined === '' ? undefined : `${joined}]`;
}

/** The calls of one request as they finish, for the `rpc:request` event. */
class CallLog {
  /** Successful calls tallied per method (a batch is mostly one method); failures one by one. */
  private readonly ok = new Map<string, { method: string; outcome: string; count: number; seconds: number }>();
  private readonly failures: RpcCallRecord[] = [];
  single = false;
  httpStatus: number | undefined;
  lastName: string | undefined;
  lastMethod: RegisteredMethod | undefined;
  lastContext: CallContext<unknown> | undefined;
  clock = performance.now();

  private lastTally: { method: string; outcome: string; count: number; seconds: number } | undefined;

  succeeded(method: string, seconds: number): void {
    const last = this.lastTally;
    if (last !== undefined && last.method === method) {
      last.count++;
      last.seconds += seconds;
      return;
    }
    const tally = this.ok.get(method);
    if (tally) {
      tally.count++;
      tally.seconds += seconds;
      this.lastTally = tally;
    } else {
      this.lastTally = { method, outcome: 'ok', count: 1, seconds };
      this.ok.set(method, this.lastTally);
    }
  }

  failed(method: string, outcome: string, seconds: number): void {
    this.failures.push({ method, outcome, count: 1, seconds });
  }

  get empty(): boolean {
    return this.ok.size === 0 && this.failures.length === 0;
  }

  /**
   * Seconds since `started` for a single call. In a batch, calls are not timed one by one (a clock
   * read would cost a tenth of a cheap call): `records()` shares the batch's time among them.
   */
  tick(started: number): number {
    if (!this.single) return 0;
    const now = performance.now();
    return (now - started) / 1000;
  }

  records(): RpcCallRecord[] {
    const all = this.ok.size === 0 ? this.failures : [...this.ok.values(), ...this.failures];
    if (this.single) return all;
    const seconds = (performance.now() - this.clock) / 1000;
    let calls = 0;
    for (const record of all) calls += record.count;
    return all.map((record) => ({ ...record, seconds: (seconds * record.count) / calls }));
  }
}

/** A result as JSON; heights, counts and flags skip the serializer. */
function resultJson(result: unknown): string {
  if (typeof result === 'number') return Number.isFinite(result) ? String(result) : 'null';
  if (typeof result === 'boolean') return result ? 'true' : 'false';
  return result === undefined ? 'null' : JSON.stringify(result);
}

function errorBody(idJson: string, error: { code: number; message: string; data?: unknown }): string {
  return `{"jsonrpc":"2.0","id":${idJson},"error":${JSON.stringify(error)}}`;
}

function standardError(
  name: keyof typeof STANDARD_ERRORS,
  reason: string,
): { code: number; message: string; data: { reason: string } } {
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
      return {
        kind: 'invalid',
        body: errorBody(ID_NULL, standardError('parse_error', `body is not valid JSON: ${(error as Error).message}`)),
      };
    }
    if (!Array.isArray(value)) return { kind: 'single', call: value };
    if (value.length === 0)
      return {
        kind: 'invalid',
        body: errorBody(ID_NULL, standardError('invalid_request', 'a batch must not be empty')),
      };
    if (value.length > this.options.maxBatch) {
      return {
        kind: 'invalid',
        body: errorBody(
          ID_NULL,
          standardError(
            'invalid_request',
            `a batch of ${value.length} calls exceeds the limit of ${this.options.maxBatch}`,
          ),
        ),
      };
    }
    return { kind: 'batch', calls: value };
  }

  /**
   * Runs the calls; undefined means nothing is sent back (notifications only). When every handler
   * answers synchronously, so does this: no promise per request on the hot path.
   */
  execute(parsed: ParsedRequest, request: RequestInfo): Reply | Promise<Reply> {
    if (parsed.kind === 'invalid') return parsed.body;
    const log = new CallLog();
    if (parsed.kind === 'single') {
      log.single = true;
      const reply = this.call(parsed.call, request, log);
      return isPromise(reply) ? reply.then((r) => this.finish(r, log, request)) : this.finish(reply, log, request);
    }
    // Synchronous replies are joined as they come; the first asynchronous one hands over to executeRest.
    let joined = '';
    for (let i = 0; i < parsed.calls.length; i++) {
      const reply = this.call(parsed.calls[i], request, log);
      if (isPromise(reply)) return this.executeRest(parsed.calls, i + 1, joined, reply, request, log);
      if (reply !== undefined) joined = joined === '' ? `[${reply}` : `${joined},${reply}`;
    }
    return this.finish(joined === '' ? undefined : `${joined}]`, log, request);
  }

  /**
   * The rest of a batch once a call turned out asynchronous (real work, e.g. a write to storage):
   * it pauses every few calls so one large batch can't hold the loop while other clients wait.
   * `joined` holds the replies before it, as an open JSON array text (or '' for none).
   */
  private async executeRest(
    calls: readonly unknown[],
    from: number,
    joined: string,
    first: Promise<Reply>,
    request: RequestInfo,
    log: CallLog,
  ): Promise<Reply> {
    const replies: (Reply | Promise<Reply>)[] = [first];
    for (let i = from; i < calls.length; i++) {
      if ((i - from) % ASYNC_CALLS_PER_TURN === ASYNC_CALLS_PER_TURN - 1) await nextTurn();
      replies.push(this.call(calls[i], request, log));
    }
    const rest = joinBatch(await Promise.all(replies));
    const all = joined === '' ? rest : rest === undefined ? `${joined}]` : `${joined},${rest.slice(1)}`;
    return this.finish(all, log, request);
  }

  handle(text: string, request: RequestInfo): Reply | Promise<Reply> {
    return this.execute(this.parse(text), request);
  }

  private finish(reply: Reply, log: CallLog, request: RequestInfo): Reply {
    if (log.httpStatus !== undefined) request.response.status = log.httpStatus;
    if (!log.empty) this.options.events.emit('rpc:request', { transport: request.transport, calls: log.records() });
    return reply;
  }

  private call(raw: unknown, request: RequestInfo, records: CallLog): Reply | Promise<Reply> {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return errorBody(ID_NULL, standardError('invalid_request', 'a request must be a JSON object'));
    }
    const message = raw as Record<string, unknown>;
    const hasId = message.id !== undefined || 'id' in message;
    const id = message.id;
    const idJson = hasId && isValidId(id) ? (typeof id === 'number' ? String(id) : JSON.stringify(id)) : ID_NULL;
    const invalid = this.checkShape(message);
    if (invalid) return errorBody(idJson, standardError('invalid_request', invalid));

    const name = message.method as string;
    const started = records.clock;
    let result: unknown;
    try {
      result = this.dispatch(name, message.params === undefined ? EMPTY : message.params, request, records);
    } catch (error) {
      return this.failed(error, name, idJson, hasId, started, records);
    }
    if (isPromise(result)) {
      return result.then(
        (value) => this.succeeded(value, name, idJson, hasId, started, records),
        (error: unknown) => this.failed(error, name, idJson, hasId, started, records),
      );
    }
    return this.succeeded(result, name, idJson, hasId, started, records);
  }

  private succeeded(
    result: unknown,
    name: string,
    idJson: string,
    hasId: boolean,
    started: number,
    records: CallLog,
  ): Reply {
    records.succeeded(name, records.tick(started));
    return hasId ? `{"jsonrpc":"2.0","id":${idJson},"result":${resultJson(result)}}` : undefined;
  }

  private failed(
    error: unknown,
    name: string,
    idJson: string,
    hasId: boolean,
    started: number,
    records: CallLog,
  ): Reply {
    const wire = this.wireError(error, name);
    // A single call's transport-level error (429 from the faucet's per-IP throttle) sets the HTTP status.
    if (records.single && isRpcError(error) && error.httpStatus !== undefined) records.httpStatus = error.httpStatus;
    // The outcome is the error's name (a metric label), whatever text the client is shown.
    records.failed(this.options.registry.has(name) ? name : '(unknown)', wire.message, records.tick(started));
    return hasId ? errorBody(idJson, isEthereumMethod(name) ? ethereumShaped(wire) : wire) : undefined;
  }

  private checkShape(message: Record<string, unknown>): string | undefined {
    if (message.jsonrpc !== '2.0') return '"jsonrpc" must be exactly "2.0"';
    if (typeof message.method !== 'string') return '"method" must be a string';
    if ('id' in message && !isValidId(message.id)) return '"id" must be a string, a number or null';
    if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null))
      return '"params" must be an array';
    return undefined;
  }

  /** Validates and runs one call; returns the handler's value or promise, or throws. */
  private dispatch(name: string, params: unknown, request: RequestInfo, log: CallLog): unknown {
    // A batch usually repeats one method: reuse its lookup and call context.
    let method: RegisteredMethod | undefined;
    let call: CallContext<unknown>;
    if (log.lastName === name && log.lastMethod) {
      method = log.lastMethod;
      call = log.lastContext!;
    } else {
      method = this.options.registry.get(name);
      if (method) {
        call = {
          service: method.service,
          transport: request.transport,
          remoteAddress: request.remoteAddress,
          clientAddress: request.clientAddress,
          principal: request.principal,
          headers: request.headers,
          connection: request.connection,
        };
        log.lastName = name;
        log.lastMethod = method;
        log.lastContext = call;
      } else {
        call = undefined as never;
      }
    }
    if (!method)
      throw new RpcError(STANDARD_ERRORS.method_not_found.code, STANDARD_ERRORS.method_not_found.message, {
        reason: `method "${name.slice(0, 100)}" does not exist on this node`,
      });
    if (!Array.isArray(params)) {
      throw new RpcError(-32602, 'invalid_params', { reason: 'params must be a positional array', field: 'params' });
    }
    const invalid = method.params.check(params);
    if (invalid) throw invalid;
    const padded =
      params.length < method.spec.params.length
        ? [...params, ...new Array<undefined>(method.spec.params.length - params.length)]
        : params;
    const result = method.spec.handler(padded, call);
    if (!this.options.validateResults) return result;
    const check = (value: unknown): unknown => {
      if (!method.result.Check(value))
        throw new Error(
          `result of ${name} does not match its schema: ${JSON.stringify(method.result.Errors(value).slice(0, 3))}`,
        );
      return value;
    };
    return isPromise(result) ? result.then(check) : check(result);
  }

  private wireError(error: unknown, method: string): WireError {
    if (isRpcError(error)) return error.toJSON();
    this.options.log.error({ err: error, method }, `internal error in ${method}`);
    return standardError('internal_error', 'the node failed to process this call; see its log');
  }
}
