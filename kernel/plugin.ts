import type { Static, TSchema } from 'typebox';
import type { Context as HonoContext } from 'hono';
import { RpcError, type ErrorDeclarations } from '../sdk/errors.js';
import type { ScopedEvents } from './events.js';
import type { Logger } from './log.js';
import type { Namespace, WriteBatch } from './storage/namespace.js';
import type { Layout, NamespaceSpec, Table } from './storage/layout.js';

export type { Codec } from './storage/codec.js';
export type { Layout, NamespaceSpec, Table };

/**
 * Events on the node's one bus. Plugins add theirs by augmenting this interface:
 * `declare module 'svc-node/plugin' { interface SvcEvents { 'hello:greeted': { name: string } } }`.
 */
export interface SvcEvents {
  /** One HTTP body or WebSocket message was answered: each call's method, outcome (`ok` or the error's message) and duration. */
  'rpc:request': { transport: 'http' | 'ws'; calls: readonly RpcCallRecord[] };
  'ws:open': { connections: number };
  'ws:close': { connections: number };
  'node:started': { rpcUrl: string };
  'node:stopping': Record<string, never>;
}

/** Calls of one request with the same method and outcome (a batch of 100 balance reads is one record). */
export interface RpcCallRecord {
  /** The method name, or `(unknown)` for a name no plugin registered (keeps label sets bounded). */
  readonly method: string;
  readonly outcome: string;
  readonly count: number;
  /** Total seconds of those calls. */
  readonly seconds: number;
}

/**
 * Services that plugins provide to each other, by capability name. A plugin that provides one
 * augments this interface so `ctx.use('name')` is typed:
 * `declare module 'svc-node/plugin' { interface SvcCapabilities { greeter: Greeter } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: plugins augment this interface; a type alias cannot be augmented.
export interface SvcCapabilities {}

export type CapabilityName = keyof SvcCapabilities & string;
export type CapabilityOf<K extends string> = K extends CapabilityName ? SvcCapabilities[K] : unknown;

/** Facts about the node a plugin may read. */
export interface NodeSettings {
  readonly network: string;
  readonly role: string;
  readonly dataDir: string;
  readonly version: string;
}

/** What a plugin sees: its own config slice, namespaces, logger and events, and the capabilities it requires. */
export interface PluginContext<C = unknown> {
  readonly name: string;
  readonly config: C;
  readonly node: NodeSettings;
  readonly log: Logger;
  readonly events: ScopedEvents;
  /** Aborted when the node starts shutting down. */
  readonly signal: AbortSignal;
  /** One of the namespaces this plugin declared. */
  namespace(name: string): Namespace;
  /** One of the namespaces this plugin declared with a layout, read and written through its codecs. */
  table<K, V>(layout: Layout<K, V>): Table<K, V>;
  /** An atomic batch that may span namespaces. */
  batch(): WriteBatch;
  /** The service behind a capability this plugin `requires`. */
  use<K extends string>(capability: K): CapabilityOf<K>;
  /**
   * Every enabled plugin, in init order: how a plugin collects what the others declare for it (the
   * hooks a domain module adds to the contract with `declare module`), without the kernel knowing them.
   */
  readonly plugins: readonly PluginEntry[];
  /**
   * Asks the host to stop the node for good: once it has stopped, the process running it exits with
   * `exitCode` (a plugin that must not go on: a height the operator asked to halt at, rules it lacks).
   * The first request counts.
   */
  requestExit(reason: string, exitCode: number): void;
}

/** Why a plugin asked the node to exit, and with what code the process running it should. */
export interface ExitRequest {
  readonly plugin: string;
  readonly reason: string;
  readonly exitCode: number;
}

/** An enabled plugin as other plugins see it. */
export interface PluginEntry {
  readonly definition: AnyPlugin;
  /** Its service; throws until its init has run (read it when called upon, not at init). */
  service(): unknown;
}

export interface ParamSpec<S extends TSchema = TSchema> {
  readonly name: string;
  readonly schema: S;
  readonly optional?: boolean;
  readonly description?: string;
}

type ParamValue<P> =
  P extends ParamSpec<infer S> ? (P extends { optional: true } ? Static<S> | undefined : Static<S>) : never;
export type ParamValues<P extends readonly ParamSpec[]> = { -readonly [K in keyof P]: ParamValue<P[K]> };

/** The request an RPC call arrived in. */
export interface CallContext<Svc = unknown> {
  readonly service: Svc;
  readonly transport: 'http' | 'ws';
  /** The TCP remote address. */
  readonly remoteAddress: string;
  /** The client: the TCP remote address, or the address a trusted proxy forwarded for (`rpc.trustedProxies`). */
  readonly clientAddress: string;
  /** Who the request authenticated as (a token's id with guardrails on), if anyone. */
  readonly principal: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The WebSocket connection the call came on (undefined over HTTP). */
  readonly connection: Connection | undefined;
}

/** A WebSocket connection, for methods that push (subscriptions). */
export interface Connection {
  readonly id: string;
  /** Sends a raw JSON text frame; false when the connection is gone. */
  send(text: string): boolean;
  /** Runs `listener` once the connection closes (at once if it already has). */
  onClose(listener: () => void): void;
  readonly closed: boolean;
}

/** Where a subscription's events go. */
export interface SubscriptionSink {
  readonly id: string;
  /** Pushes one event as an `svc_subscription` notification. */
  send(result: unknown): void;
  /** True once the subscription ended (unsubscribed, or its connection closed). */
  readonly closed: boolean;
}

export interface SubscriptionKindSpec<Svc, O extends TSchema> {
  /** The name clients pass to `svc_subscribe` (or `<namespace>_subscribe`: a namespace other than `svc` gets its own three methods). */
  readonly kind: string;
  readonly namespace?: string;
  readonly summary: string;
  /** Schema of the optional second `svc_subscribe` param. */
  readonly options?: O;
  /** Starts pushing to `sink`; returns what stops it. */
  start(
    sink: SubscriptionSink,
    options: Static<O> | undefined,
    service: Svc,
    events: Pick<ScopedEvents, 'on'>,
  ): (() => void) | Promise<() => void>;
}

export interface SubscriptionKind {
  readonly kind: string;
  readonly namespace?: string;
  readonly summary: string;
  readonly options?: TSchema;
  start(
    sink: SubscriptionSink,
    options: unknown,
    service: unknown,
    events: Pick<ScopedEvents, 'on'>,
  ): (() => void) | Promise<() => void>;
}

export type SubscriptionFactory<Svc> = <O extends TSchema>(spec: SubscriptionKindSpec<Svc, O>) => SubscriptionKind;

/** A request as request guards see it, before any of its calls runs. */
export interface GuardRequest {
  readonly transport: 'http' | 'ws';
  /** `handshake`: a WebSocket upgrade; `request`: a JSON-RPC body or message; `route`: another protected HTTP route. */
  readonly phase: 'handshake' | 'request' | 'route';
  readonly clientAddress: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** How many calls the request holds (0 at a handshake or for a route). */
  readonly calls: number;
  readonly methods: readonly string[];
  /** Set by an authenticating guard; later guards (rate limits) key on it. */
  principal: string | undefined;
  /** Headers for the HTTP response (WebSocket: carried in a refusal's `data` instead). */
  readonly responseHeaders: Record<string, string>;
}

/** Why a guard refuses a request: the HTTP status and the JSON-RPC error to send. */
export interface GuardRefusal {
  readonly status: number;
  readonly error: RpcErrorLike;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RpcErrorLike {
  readonly code: number;
  readonly message: string;
  readonly data?: { reason: string; [key: string]: unknown };
}

export interface GuardSpec<Svc> {
  readonly name: string;
  readonly summary: string;
  /** Runs before any call of the request; returning a refusal stops the request there. */
  check(request: GuardRequest, service: Svc): GuardRefusal | undefined;
}

export interface RpcMethodSpec<Svc, P extends readonly ParamSpec[], R extends TSchema> {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly params: P;
  readonly result: R;
  /** Errors the method may answer with, declared by the kernel or a loaded plugin (documented in rpc.discover and docs/). */
  readonly errors?: readonly string[];
  handler(params: ParamValues<P>, call: CallContext<Svc>): Static<R> | Promise<Static<R>>;
}

/** A method with its types erased, as the registry holds it. */
export interface RpcMethod {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  readonly params: readonly ParamSpec[];
  readonly result: TSchema;
  readonly errors?: readonly string[];
  handler(params: unknown[], call: CallContext<unknown>): unknown;
}

export type MethodFactory<Svc> = <const P extends readonly ParamSpec[], R extends TSchema>(
  spec: RpcMethodSpec<Svc, P, R>,
) => RpcMethod;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';

export interface RouteSpec<Svc> {
  readonly method: HttpMethod;
  /** A path other than `/`, which belongs to JSON-RPC. */
  readonly path: string;
  readonly summary: string;
  /** `protected` (the default) routes pass the request guards (guardrails: a token); `public` ones don't. */
  readonly access?: 'public' | 'protected';
  /** A page: a browser's `GET /` (asking for HTML) is redirected to it. One route of a node at most. */
  readonly home?: boolean;
  handler(c: HonoContext, service: Svc): Response | Promise<Response>;
}

/**
 * The version of this contract. A plugin loaded from a path or a package declares the version it was
 * written for (`kernelApi`), and the loader refuses one written for another.
 */
export const KERNEL_API = 1;

export interface PluginDefinition<C extends TSchema = TSchema, Svc = unknown> {
  /** Unique, lowercase: `[a-z][a-z0-9-]*`. */
  readonly name: string;
  /** The kernel API this plugin was written for (`KERNEL_API`); required of third-party plugins. */
  readonly kernelApi?: number;
  readonly version: string;
  readonly description: string;
  /** Capabilities (or plugin names) that must be loaded; this plugin starts after their providers. */
  readonly requires?: readonly string[];
  /** Capabilities this plugin offers to others through `ctx.use()`; its own name is always provided. */
  readonly provides?: readonly string[];
  /** Plugins this one runs after when they are enabled too (ordering only, not a requirement). */
  readonly after?: readonly string[];
  /** Its config slice, found under the plugin's name in the config file. */
  readonly config?: C;
  /**
   * Defaults for the slice taken from node-level settings (flags such as `--rate-limit` that
   * belong to a plugin); keys given in the plugin's own slice win over them.
   */
  configFromNode?(node: Readonly<Record<string, unknown>>): Record<string, unknown>;
  readonly namespaces?: readonly NamespaceSpec[];
  /** Events it emits, name -> description. */
  readonly events?: Readonly<Record<string, string>>;
  /**
   * The errors it raises, by snake_case name: a stable code and when. Declared at start before any
   * plugin runs; a name or code another plugin (or the kernel) declared otherwise refuses the start.
   */
  readonly errors?: ErrorDeclarations;
  /** Builds the plugin's service. Runs in dependency order, before any RPC or route is served. */
  init?(ctx: PluginContext<Static<C>>): Svc | Promise<Svc>;
  /** Runs after every plugin's init, before RPC is served: restores what the first request must find (journals replayed). */
  recover?(service: Svc, ctx: PluginContext<Static<C>>): void | Promise<void>;
  start?(service: Svc, ctx: PluginContext<Static<C>>): void | Promise<void>;
  stop?(service: Svc, ctx: PluginContext<Static<C>>): void | Promise<void>;
  /** RPC methods, built with the given factory so handlers see the service's type. */
  rpc?(method: MethodFactory<Svc>): readonly RpcMethod[];
  routes?: readonly RouteSpec<Svc>[];
  /** Checks every request before its calls run (authentication, rate limits), in plugin order. */
  readonly guards?: readonly GuardSpec<Svc>[];
  /** Event streams clients can `svc_subscribe` to over WebSocket. */
  subscriptions?(kind: SubscriptionFactory<Svc>): readonly SubscriptionKind[];
  /** A reason the node is not ready (reported by /health), or undefined when this plugin is ready. */
  notReady?(service: Svc): string | undefined;
  /** Details this plugin adds to `/health?verbose` (a flat JSON object; keys should not clash). */
  health?(service: Svc): Record<string, unknown>;
}

/** Declares a plugin. An identity function that gives the definition its types. */
export function definePlugin<C extends TSchema = TSchema, Svc = undefined>(
  definition: PluginDefinition<C, Svc>,
): PluginDefinition<C, Svc> {
  return definition;
}

/** A plugin's RPC methods, read from its definition without running it. */
export function pluginMethods(plugin: AnyPlugin): readonly RpcMethod[] {
  const rpc = plugin.rpc as ((factory: (spec: unknown) => RpcMethod) => readonly RpcMethod[]) | undefined;
  return rpc?.((spec) => spec as RpcMethod) ?? [];
}

/** A plugin's subscription kinds, read from its definition without running it. */
export function pluginSubscriptions(plugin: AnyPlugin): readonly SubscriptionKind[] {
  const subscriptions = plugin.subscriptions as
    | ((factory: (spec: unknown) => SubscriptionKind) => readonly SubscriptionKind[])
    | undefined;
  return subscriptions?.((spec) => spec as SubscriptionKind) ?? [];
}

/** A positional parameter. */
export function param<S extends TSchema>(
  name: string,
  schema: S,
  options: { description?: string } = {},
): ParamSpec<S> {
  return { name, schema, ...options };
}

export function optionalParam<S extends TSchema>(
  name: string,
  schema: S,
  options: { description?: string } = {},
): ParamSpec<S> & { optional: true } {
  return { name, schema, optional: true, ...options };
}

/** Any plugin, its types erased. */
// The erased form must accept every plugin's service type; `never` parameters make that sound.
export type AnyPlugin = PluginDefinition<TSchema, never> | PluginDefinition<TSchema, unknown>;

// Plugin authors need these too, from the same copies the kernel uses.
export { default as Type } from 'typebox';
export {
  domainError,
  RpcError,
  type DomainErrorName,
  type ErrorDeclaration,
  type ErrorDeclarations,
} from '../sdk/errors.js';

/**
 * A plugin's own errors: the table for its definition's `errors`, and `error(name, reason)` to raise
 * one with its declared code (and HTTP status), typed by the table's names.
 */
export function pluginErrors<const T extends ErrorDeclarations>(
  declarations: T,
): {
  readonly declarations: T;
  error(name: keyof T & string, reason: string, extra?: Record<string, unknown>): RpcError;
} {
  return {
    declarations,
    error(name, reason, extra) {
      const declared = declarations[name]!;
      return new RpcError(declared.code, name, { reason, ...extra }, declared.httpStatus);
    },
  };
}
