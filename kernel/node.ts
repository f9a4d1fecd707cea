import { existsSync, rmSync } from 'node:fs';
import { asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix';
import Type from 'typebox';
import { chainPlugin } from './chain/plugin.js';
import { p2pPlugin } from './p2p/plugin.js';
import type { P2pService } from './p2p/service.js';
import { keystorePlugin } from './keys/plugin.js';
import { bootstrapAddressProblem } from './p2p/addresses.js';
import { TxKindRegistry } from './chain/tx-kinds.js';
import { devnetGenesis, readGenesisFile, type GenesisSpec } from './chain/genesis.js';
import { checkConfig, ConfigError } from './config/errors.js';
import type { ResolvedConfig } from './config/load.js';
import { EventBus, type ScopedEvents } from './events.js';
import { RpcServer } from './http/server.js';
import { readTlsCredentials } from './http/tls.js';
import { RouteTable } from './http/routes.js';
import { ClientAddressResolver } from './http/client-address.js';
import { CorsPolicy } from './http/cors.js';
import { GuardChain } from './rpc/guards.js';
import { SubscriptionRegistry } from './rpc/subscriptions.js';
import type { Logger } from './log.js';
import { pluginMethods, pluginSubscriptions, pluginTxKinds, type AnyPlugin, type NodeSettings, type PluginContext, type PluginDefinition } from './plugin.js';
import { orderPlugins } from './plugins/order.js';
import { loadPlugins, pluginRequests, type PluginCatalog } from './plugins/load.js';
import { RpcEngine } from './rpc/engine.js';
import { discoverMethod } from './rpc/openrpc.js';
import { nodeInfoMethod } from './node-info.js';
import { MethodRegistry } from './rpc/registry.js';
import { keyPassphrase, loadOrCreateNodeKeys, type NodeKeys } from './keys/node-keys.js';
import { lockDataDir, type DataDirLock } from './storage/data-dir-lock.js';
import { openStore } from './storage/open.js';
import type { Store } from './storage/store.js';
import { VERSION } from './version.js';

import type { TSchema } from 'typebox';

export interface NodeOptions {
  readonly config: ResolvedConfig;
  readonly catalog: PluginCatalog;
  readonly log: Logger;
  /** Folder that relative plugin paths are resolved from (the config file's). */
  readonly baseDir?: string;
  /** Plugin values added after the configured ones (embedding and tests). */
  readonly plugins?: readonly AnyPlugin[];
}

export type NodeState = 'created' | 'starting' | 'running' | 'stopping' | 'stopped';

type ErasedPlugin = PluginDefinition<TSchema, unknown>;

interface LoadedPlugin {
  readonly definition: ErasedPlugin;
  readonly config: unknown;
  context?: PluginContext<unknown>;
  events?: ScopedEvents;
  service?: unknown;
  started: boolean;
}

/**
 * A node: the kernel plus the plugins its config enables. `create` loads and checks everything
 * that can be checked without side effects; `start` takes the data dir, opens storage, inits the
 * plugins in dependency order, mounts their methods and routes, listens, then starts them;
 * `stop` undoes it in reverse, database last.
 */
export class SvcNode {
  readonly settings: NodeSettings;
  readonly methods = new MethodRegistry();
  readonly guards = new GuardChain();
  readonly subscriptions: SubscriptionRegistry;
  readonly routes: RouteTable;
  private readonly clients: ClientAddressResolver;
  private readonly cors: CorsPolicy;
  private readonly bus: EventBus;
  private readonly container: AwilixContainer;
  private readonly abort = new AbortController();
  private lock: DataDirLock | undefined;
  private nodeKeys: NodeKeys | undefined;
  private store: Store | undefined;
  private server: RpcServer | undefined;
  private currentState: NodeState = 'created';
  private stopping: Promise<void> | undefined;

  private constructor(
    private readonly options: NodeOptions,
    readonly genesis: GenesisSpec,
    readonly txKinds: TxKindRegistry,
    readonly plugins: readonly LoadedPlugin[],
  ) {
    const { node } = options.config;
    this.settings = { network: node.network, role: node.role, dataDir: node.dataDir, version: VERSION };
    this.clients = new ClientAddressResolver(node.rpc.trustedProxies);
    this.cors = new CorsPolicy(node.rpc.corsOrigins ?? (node.guardrails ? [] : ['*']));
    this.routes = new RouteTable(this.guards, this.clients, this.cors);
    this.bus = new EventBus(options.log);
    this.subscriptions = new SubscriptionRegistry(this.bus, options.log, node.rpc.maxSubscriptionsPerConnection);
    this.container = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
  }

  static async create(options: NodeOptions): Promise<SvcNode> {
    const { node, slices, origins } = options.config;
    node.p2p.bootstrapPeers.forEach((address, i) => {
      const problem = bootstrapAddressProblem(address);
      if (problem) throw new ConfigError(`p2p.bootstrapPeers[${i}]: "${address}" ${problem}`);
    });
    const genesis = node.network === 'devnet' && !node.genesis ? devnetGenesis() : readGenesisFile(node.genesis!, node.network);
    const configured = await loadPlugins(pluginRequests(node, options.catalog), options.catalog, options.baseDir ?? process.cwd(), options.log);
    const txKinds = new TxKindRegistry();
    const chain = chainPlugin(genesis, txKinds, { historyBlocks: node.chain.historyBlocks });
    // The peer key is read from the data dir at start, before any plugin's init.
    let created: SvcNode | undefined;
    const p2p = p2pPlugin(node.p2p, () => created!.keys.peerKey);
    const keystore = keystorePlugin(() => created!.keys.operators);
    const all = orderPlugins([chain as AnyPlugin, keystore as AnyPlugin, p2p as AnyPlugin, ...configured, ...(options.plugins ?? [])]) as ErasedPlugin[];
    const enabled = new Set(all.map((p) => p.name));
    for (const key of Object.keys(slices)) {
      if (enabled.has(key)) continue;
      if (key in options.catalog.plugins || options.catalog.planned.has(key)) {
        options.log.warn({ plugin: key }, `config for plugin "${key}" is ignored: the plugin is not enabled on this node`);
        continue;
      }
      throw new ConfigError(`unknown config key "${key}": not a node setting and not an enabled plugin's name`);
    }
    const sliceOf = (definition: ErasedPlugin): unknown => {
      const fromNode = definition.configFromNode?.(node);
      return fromNode ? { ...fromNode, ...(slices[definition.name] as object | undefined) } : slices[definition.name];
    };
    const loaded = all.map((definition) => ({
      definition,
      config: checkConfig(definition.config ?? Type.Object({}, { additionalProperties: false }), sliceOf(definition) ?? {}, definition.name, origins),
      started: false,
    }));
    created = new SvcNode(options, genesis, txKinds, loaded);
    return created;
  }

  get state(): NodeState {
    return this.currentState;
  }

  get rpcUrl(): string {
    if (!this.server) throw new Error('node is not listening');
    return this.server.url;
  }

  /** The data dir's keys (after start). */
  get keys(): NodeKeys {
    if (!this.nodeKeys) throw new Error('node keys are loaded at start');
    return this.nodeKeys;
  }

  get events(): EventBus {
    return this.bus;
  }

  get webSocketConnections(): number {
    return this.server?.webSocketConnections ?? 0;
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

  /** What the plugins add to `/health?verbose`. */
  private healthDetails(): Record<string, unknown> {
    const details: Record<string, unknown> = {};
    if (this.currentState !== 'running') return details;
    for (const plugin of this.plugins) Object.assign(details, plugin.definition.health?.(plugin.service));
    return details;
  }

  /** A plugin's service by capability (embedding and tests). */
  service<T>(capability: string): T {
    return this.container.resolve<T>(capability);
  }

  async start(): Promise<void> {
    if (this.currentState !== 'created') throw new Error(`cannot start a node that is ${this.currentState}`);
    this.currentState = 'starting';
    const { node } = this.options.config;
    const log = this.options.log;
    // A start that fails leaves no data dir it created (a typo'd --bind must not leave ./data behind).
    const newDataDir = !existsSync(node.dataDir);
    try {
      const tls = node.rpc.tls ? readTlsCredentials(node.rpc.tls) : undefined;
      this.lock = lockDataDir(node.dataDir);
      this.nodeKeys = await loadOrCreateNodeKeys(node.dataDir, keyPassphrase(node.passphraseFile));
      log.info({ peerId: this.nodeKeys.peerId, operator: this.nodeKeys.operator.address, operators: this.nodeKeys.operators.addresses.length, dataDir: node.dataDir }, 'node keys loaded');
      this.store = await openStore(node.storage, node.dataDir);
      for (const plugin of this.plugins) await this.initPlugin(plugin);
      this.addKernelMethods();
      this.mountKernelRoutes();
      const [host, port] = splitBind(node.rpc.bind);
      const engine = new RpcEngine({ registry: this.methods, maxBatch: node.rpc.maxBatch, validateResults: node.rpc.validateResults, log, events: this.bus });
      this.server = new RpcServer({
        host,
        port,
        tls,
        transport: { engine, guards: this.guards, clients: this.clients, cors: this.cors, maxBody: node.rpc.maxBody },
        webSocket: {
          maxConnections: node.rpc.maxWsConnections,
          maxConnectionsPerClient: node.rpc.maxWsConnectionsPerClient,
          idleTimeoutMs: node.rpc.wsIdleTimeoutSeconds * 1000,
          maxBuffered: node.rpc.wsMaxBufferedBytes,
        },
        routes: this.routes.app,
        events: this.bus,
        log,
      });
      const url = await this.server.listen();
      log.info({ url }, `rpc listening on ${url}`);
      for (const plugin of this.plugins) {
        await plugin.definition.start?.(plugin.service, plugin.context!);
        plugin.started = true;
      }
      this.currentState = 'running';
      this.bus.emit('node:started', { rpcUrl: url });
      log.info({ network: node.network, role: node.role, plugins: this.plugins.map((p) => p.definition.name) }, 'node started');
    } catch (error) {
      await this.teardown();
      this.currentState = 'stopped';
      if (newDataDir) rmSync(node.dataDir, { recursive: true, force: true });
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
      this.bus.emit('node:stopping', {});
      await this.teardown();
      this.currentState = 'stopped';
      this.options.log.info('node stopped');
    })();
    return this.stopping;
  }

  private async teardown(): Promise<void> {
    const log = this.options.log;
    this.abort.abort();
    await this.server?.close().catch((error: unknown) => log.error({ err: error }, 'closing the RPC server failed'));
    for (const plugin of [...this.plugins].reverse()) {
      if (plugin.started || plugin.context) {
        try {
          if (plugin.started) await plugin.definition.stop?.(plugin.service, plugin.context!);
        } catch (error) {
          log.error({ err: error, plugin: plugin.definition.name }, `plugin "${plugin.definition.name}" failed to stop`);
        }
        plugin.started = false;
      }
      plugin.events?.dispose();
    }
    await this.store?.close().catch((error: unknown) => log.error({ err: error }, 'closing the database failed'));
    this.store = undefined;
    this.lock?.release();
    this.lock = undefined;
  }

  private async initPlugin(plugin: LoadedPlugin): Promise<void> {
    const definition = plugin.definition;
    const store = this.store!;
    const owned = new Map(definition.namespaces?.map((ns) => [ns.name, store.claim(ns.name, definition.name)]));
    const requires = new Set(definition.requires ?? []);
    const events = this.bus.scoped(definition.name);
    const container = this.container;
    const context: PluginContext<unknown> = {
      name: definition.name,
      config: plugin.config,
      node: this.settings,
      log: this.options.log.child({ plugin: definition.name }),
      events,
      signal: this.abort.signal,
      namespace(name) {
        const namespace = owned.get(name);
        if (!namespace) throw new Error(`plugin "${definition.name}" did not declare namespace "${name}"`);
        return namespace;
      },
      batch: () => store.batch(),
      use(capability) {
        if (!requires.has(capability)) throw new Error(`plugin "${definition.name}" uses "${capability}" without listing it in "requires"`);
        return container.resolve(capability);
      },
    };
    plugin.context = context;
    plugin.events = events;
    plugin.service = definition.init ? await definition.init(context) : undefined;
    for (const capability of new Set([definition.name, ...(definition.provides ?? [])])) {
      this.container.register(capability, asValue(plugin.service));
    }
    const methods = pluginMethods(definition);
    for (const method of methods) this.methods.add(method, definition.name, plugin.service);
    for (const kind of pluginTxKinds(definition as AnyPlugin)) this.txKinds.add(kind, definition.name, plugin.service);
    const endBlock = definition.endBlock;
    if (endBlock) this.txKinds.addEndBlock(definition.name, (ctx) => endBlock(ctx, plugin.service));
    for (const kind of pluginSubscriptions(definition as AnyPlugin)) this.subscriptions.add(kind, definition.name, plugin.service);
    for (const route of definition.routes ?? []) {
      this.routes.add({ method: route.method, path: route.path, owner: definition.name, summary: route.summary, access: route.access ?? 'protected' }, (c) => route.handler(c, plugin.service));
    }
    for (const guard of definition.guards ?? []) {
      this.guards.add({ owner: definition.name, name: guard.name, check: (request) => guard.check(request, plugin.service) });
    }
  }

  private addKernelMethods(): void {
    this.methods.add(discoverMethod(this.methods, VERSION), 'kernel', undefined);
    for (const method of this.subscriptions.methods()) this.methods.add(method, 'kernel', undefined);
    this.methods.add(
      nodeInfoMethod(() => ({
        version: VERSION,
        network: this.settings.network,
        chainId: this.genesis.chainId,
        role: this.settings.role,
        plugins: this.plugins.map((p) => ({ name: p.definition.name, version: p.definition.version })),
        capabilities: [...new Set(this.plugins.flatMap((p) => [p.definition.name, ...(p.definition.provides ?? [])]))].sort(),
        peerId: this.keys.peerId,
        listenAddresses: this.service<P2pService>('p2p').listenAddresses,
        operator: this.keys.operator.address,
        synced: this.notReadyReason() === undefined,
      })),
      'kernel',
      undefined,
    );
  }

  private mountKernelRoutes(): void {
    this.routes.add({ method: 'GET', path: '/health', owner: 'kernel', summary: 'readiness: 200 healthy, or 503 with the reason', access: 'public' }, (c) => {
      const reason = this.notReadyReason();
      const status = reason ? 503 : 200;
      if (c.req.query('verbose') === undefined) return c.text(reason ?? 'healthy', status);
      return c.json({ status: reason ?? 'healthy', role: this.settings.role, ...this.healthDetails() }, status);
    });
  }
}

/** `host:port` or `[ipv6]:port`. */
export function splitBind(bind: string): [string, number] {
  const colon = bind.lastIndexOf(':');
  const host = bind.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(bind.slice(colon + 1));
  if (!host || !Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--bind ${bind}: expected host:port with a port from 0 to 65535`);
  return [host, port];
}
