import { existsSync, rmSync } from 'node:fs';
import { asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import type { TSchema } from 'typebox';
import { ConfigError } from './config/errors.js';
import { EventBus, type ScopedEvents } from './events.js';
import { RpcServer, type TlsCredentials } from './http/server.js';
import { RouteTable } from './http/routes.js';
import { ClientAddressResolver } from './http/client-address.js';
import { CorsPolicy } from './http/cors.js';
import type { WebSocketLimits } from './http/websocket.js';
import { GuardChain } from './rpc/guards.js';
import { SubscriptionRegistry } from './rpc/subscriptions.js';
import type { Logger } from './log.js';
import {
  pluginMethods,
  pluginSubscriptions,
  type AnyPlugin,
  type ExitRequest,
  type NodeSettings,
  type PluginContext,
  type PluginDefinition,
  type PluginEntry,
  type RpcMethod,
} from './plugin.js';
import { RpcEngine } from './rpc/engine.js';
import { discoverMethod } from './rpc/openrpc.js';
import { MethodRegistry } from './rpc/registry.js';
import { lockDataDir, type DataDirLock } from './storage/data-dir-lock.js';
import { openStore, type StorageKind } from './storage/open.js';
import type { Store } from './storage/store.js';
import { Table } from './storage/layout.js';
import { VERSION } from './version.js';

type ErasedPlugin = PluginDefinition<TSchema, unknown>;

/** What the host runs: the node's settings, its RPC server's, and the plugins with their checked config slices. */
export interface HostOptions {
  readonly settings: NodeSettings;
  readonly storage: StorageKind;
  readonly rpc: {
    readonly bind: string;
    readonly maxBody: number;
    readonly maxBatch: number;
    readonly validateResults: boolean;
    readonly trustedProxies: readonly string[];
    readonly corsOrigins: readonly string[];
    readonly maxSubscriptionsPerConnection: number;
    readonly webSocket: WebSocketLimits;
    readonly tls?: TlsCredentials;
  };
  /** In dependency order (see orderPlugins), each with its checked config. */
  readonly plugins: readonly { readonly definition: AnyPlugin; readonly config: unknown }[];
  readonly log: Logger;
  /** Methods that belong to no plugin (the composition root's own), built once the plugins are up. */
  readonly methods?: (host: PluginHost) => readonly RpcMethod[];
  /** Per plugin, how long its init and its start may take. */
  readonly pluginTimeoutMs?: number;
}

export type HostState = 'created' | 'starting' | 'running' | 'stopping' | 'stopped';

interface HostedPlugin {
  readonly definition: ErasedPlugin;
  readonly config: unknown;
  context?: PluginContext<unknown>;
  events?: ScopedEvents;
  service?: unknown;
  inited: boolean;
  started: boolean;
}

export class PluginTimeoutError extends Error {
  override name = 'PluginTimeoutError';
}

/** Runs `work`, failing with an error that names the plugin and the step if it takes longer than `ms`. */
async function within<T>(ms: number, plugin: string, step: string, work: () => T | Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new PluginTimeoutError(`plugin "${plugin}": ${step} did not finish within ${ms / 1000} s`)),
      ms,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(work), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The kernel: hosts plugins. `start` takes the data dir, opens storage, inits the plugins in
 * dependency order (each seeing only its own config, namespaces and declared capabilities), mounts
 * their methods, routes, guards and subscriptions, listens, then starts them; `stop` undoes it in
 * reverse, the database last. It knows nothing of what the plugins do.
 */
export class PluginHost {
  readonly methods = new MethodRegistry();
  readonly guards = new GuardChain();
  readonly subscriptions: SubscriptionRegistry;
  readonly routes: RouteTable;
  readonly events: EventBus;
  private readonly clients: ClientAddressResolver;
  private readonly cors: CorsPolicy;
  private readonly container: AwilixContainer;
  private readonly abort = new AbortController();
  private readonly plugins: HostedPlugin[];
  private readonly entries: PluginEntry[];
  private lock: DataDirLock | undefined;
  private store: Store | undefined;
  private server: RpcServer | undefined;
  private currentState: HostState = 'created';
  private stopping: Promise<void> | undefined;
  private exitWith!: (request: ExitRequest) => void;
  /** Resolves when a plugin asks the node to exit (`requestExit`): the process running it stops it, then exits so. */
  readonly exitRequested = new Promise<ExitRequest>((resolve) => {
    this.exitWith = resolve;
  });

  constructor(private readonly options: HostOptions) {
    this.clients = new ClientAddressResolver(options.rpc.trustedProxies);
    this.cors = new CorsPolicy(options.rpc.corsOrigins);
    this.routes = new RouteTable(this.guards, this.clients, this.cors);
    this.events = new EventBus(options.log);
    this.subscriptions = new SubscriptionRegistry(this.events, options.log, options.rpc.maxSubscriptionsPerConnection);
    this.container = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
    this.plugins = options.plugins.map(({ definition, config }) => ({
      definition: definition as ErasedPlugin,
      config,
      inited: false,
      started: false,
    }));
    this.entries = this.plugins.map((plugin) => ({
      definition: plugin.definition as AnyPlugin,
      service: () => {
        if (!plugin.inited) throw new Error(`plugin "${plugin.definition.name}" is not initialised yet`);
        return plugin.service;
      },
    }));
  }

  get settings(): NodeSettings {
    return this.options.settings;
  }

  get state(): HostState {
    return this.currentState;
  }

  get rpcUrl(): string {
    if (!this.server) throw new Error('node is not listening');
    return this.server.url;
  }

  get webSocketConnections(): number {
    return this.server?.webSocketConnections ?? 0;
  }

  /** The enabled plugins, in order. */
  get definitions(): readonly AnyPlugin[] {
    return this.entries.map((entry) => entry.definition);
  }

  /** A plugin's service by capability (embedding and tests). */
  service<T>(capability: string): T {
    return this.container.resolve<T>(capability);
  }

  /** Why the node is not ready, or undefined when it is (what /health reports). */
  notReadyReason(): string | undefined {
    if (this.currentState === 'created' || this.currentState === 'starting') return 'starting';
    if (this.currentState !== 'running') return 'stopping';
    for (const plugin of this.plugins) {
      const reason = plugin.definition.notReady?.(plugin.service);
      if (reason) return reason;
    }
    return undefined;
  }

  async start(): Promise<void> {
    if (this.currentState !== 'created') throw new Error(`cannot start a node that is ${this.currentState}`);
    this.currentState = 'starting';
    const { settings, rpc, log } = this.options;
    const timeoutMs = this.options.pluginTimeoutMs ?? 60_000;
    // A start that fails leaves no data dir it created (a typo'd --bind must not leave ./data behind).
    const newDataDir = !existsSync(settings.dataDir);
    try {
      const tls = rpc.tls;
      // Every plugin's errors before anything runs: a clash refuses the start, and a method may list
      // an error of a plugin that starts after it.
      for (const plugin of this.plugins)
        this.methods.errors.declare(plugin.definition.errors ?? {}, plugin.definition.name);
      this.lock = lockDataDir(settings.dataDir);
      this.store = await openStore(this.options.storage, settings.dataDir);
      for (const plugin of this.plugins)
        await within(timeoutMs, plugin.definition.name, 'init', () => this.initPlugin(plugin));
      for (const plugin of this.plugins)
        await within(timeoutMs, plugin.definition.name, 'recover', () =>
          plugin.definition.recover?.(plugin.service, plugin.context!),
        );
      this.methods.add(discoverMethod(this.methods, VERSION), 'kernel', undefined);
      for (const method of this.subscriptions.methods()) this.methods.add(method, 'kernel', undefined);
      for (const method of this.options.methods?.(this) ?? []) this.methods.add(method, 'kernel', undefined);
      this.mountHealth();
      const [host, port] = splitBind(rpc.bind);
      const engine = new RpcEngine({
        registry: this.methods,
        maxBatch: rpc.maxBatch,
        validateResults: rpc.validateResults,
        log,
        events: this.events,
      });
      this.server = new RpcServer({
        host,
        port,
        tls,
        transport: { engine, guards: this.guards, clients: this.clients, cors: this.cors, maxBody: rpc.maxBody },
        webSocket: rpc.webSocket,
        routes: this.routes.app,
        home: () => this.routes.home()?.path,
        events: this.events,
        log,
      });
      const url = await this.server.listen();
      log.info({ url }, `rpc listening on ${url}`);
      for (const plugin of this.plugins) {
        await within(timeoutMs, plugin.definition.name, 'start', () =>
          plugin.definition.start?.(plugin.service, plugin.context!),
        );
        plugin.started = true;
      }
      this.currentState = 'running';
      this.events.emit('node:started', { rpcUrl: url });
      log.info(
        { network: settings.network, role: settings.role, plugins: this.plugins.map((p) => p.definition.name) },
        'node started',
      );
    } catch (error) {
      await this.teardown().catch((failed: unknown) =>
        this.options.log.error({ err: failed }, 'tearing down after a failed start'),
      );
      this.currentState = 'stopped';
      if (newDataDir) rmSync(settings.dataDir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Stops accepting requests, stops the plugins in reverse order, closes the database, releases the data dir. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.currentState === 'created' || this.currentState === 'stopped') {
        this.currentState = 'stopped';
        return;
      }
      this.currentState = 'stopping';
      this.events.emit('node:stopping', {});
      await this.teardown().finally(() => (this.currentState = 'stopped'));
      this.options.log.info('node stopped');
    })();
    return this.stopping;
  }

  private async teardown(): Promise<void> {
    const log = this.options.log;
    this.abort.abort();
    await this.server?.close().catch((error: unknown) => log.error({ err: error }, 'closing the RPC server failed'));
    for (const plugin of [...this.plugins].reverse()) {
      if (plugin.started) {
        try {
          await plugin.definition.stop?.(plugin.service, plugin.context!);
        } catch (error) {
          log.error(
            { err: error, plugin: plugin.definition.name },
            `plugin "${plugin.definition.name}" failed to stop`,
          );
        }
        plugin.started = false;
      }
      plugin.events?.dispose();
    }
    const failed = await this.store?.close().then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    this.store = undefined;
    if (failed)
      throw new Error(
        `closing the database failed (the data dir stays locked until this process exits): ${failed.message}`,
      );
    this.lock?.release();
    this.lock = undefined;
  }

  private async initPlugin(plugin: HostedPlugin): Promise<void> {
    const definition = plugin.definition;
    const store = this.store!;
    const owned = new Map(definition.namespaces?.map((ns) => [ns.name, store.claim(ns.name, definition.name)]));
    const requires = new Set(definition.requires ?? []);
    const events = this.events.scoped(definition.name);
    const container = this.container;
    const context: PluginContext<unknown> = {
      name: definition.name,
      config: plugin.config,
      node: this.options.settings,
      log: this.options.log.child({ plugin: definition.name }),
      events,
      signal: this.abort.signal,
      plugins: this.entries,
      namespace(name) {
        const namespace = owned.get(name);
        if (!namespace) throw new Error(`plugin "${definition.name}" did not declare namespace "${name}"`);
        return namespace;
      },
      table(layout) {
        return new Table(context.namespace(layout.name), layout);
      },
      batch: () => store.batch(),
      use(capability) {
        if (!requires.has(capability))
          throw new Error(`plugin "${definition.name}" uses "${capability}" without listing it in "requires"`);
        return container.resolve(capability);
      },
      requestExit: (reason, exitCode) => this.exitWith({ plugin: definition.name, reason, exitCode }),
    };
    plugin.context = context;
    plugin.events = events;
    plugin.service = definition.init ? await definition.init(context) : undefined;
    plugin.inited = true;
    for (const capability of new Set([definition.name, ...(definition.provides ?? [])])) {
      this.container.register(capability, asValue(plugin.service));
    }
    for (const method of pluginMethods(definition)) this.methods.add(method, definition.name, plugin.service);
    for (const kind of pluginSubscriptions(definition as AnyPlugin))
      this.subscriptions.add(kind, definition.name, plugin.service);
    for (const route of definition.routes ?? []) {
      this.routes.add(
        {
          method: route.method,
          path: route.path,
          owner: definition.name,
          summary: route.summary,
          access: route.access ?? 'protected',
          ...(route.home ? { home: true } : {}),
        },
        (c) => route.handler(c, plugin.service),
      );
    }
    for (const guard of definition.guards ?? []) {
      this.guards.add({
        owner: definition.name,
        name: guard.name,
        check: (request) => guard.check(request, plugin.service),
      });
    }
  }

  /** What the plugins add to `/health?verbose`. */
  private healthDetails(): Record<string, unknown> {
    const details: Record<string, unknown> = {};
    if (this.currentState !== 'running') return details;
    for (const plugin of this.plugins) Object.assign(details, plugin.definition.health?.(plugin.service));
    return details;
  }

  private mountHealth(): void {
    this.routes.add(
      {
        method: 'GET',
        path: '/health',
        owner: 'kernel',
        summary: 'readiness: 200 healthy, or 503 with the reason',
        access: 'public',
      },
      (c) => {
        const reason = this.notReadyReason();
        const status = reason ? 503 : 200;
        if (c.req.query('verbose') === undefined) return c.text(reason ?? 'healthy', status);
        return c.json(
          { status: reason ?? 'healthy', role: this.options.settings.role, ...this.healthDetails() },
          status,
        );
      },
    );
  }
}

/** `host:port` or `[ipv6]:port`. */
export function splitBind(bind: string): [string, number] {
  const colon = bind.lastIndexOf(':');
  const host = bind.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(bind.slice(colon + 1));
  if (!host || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`--bind ${bind}: expected host:port with a port from 0 to 65535`);
  return [host, port];
}
