import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Type from 'typebox';
import { readGenesisFile, type GenesisSpec } from '../chain/genesis.js';
import type { Chain } from '../chain/chain.js';
import { RULES_VERSIONS } from '../chain/rules-version.js';
import { devnetGenesisSpec } from './devnet-genesis-spec.js';
import type { P2pService } from '../p2p/service.js';
import { bootstrapAddressProblem } from '../p2p/addresses.js';
import type { NodeKeys } from '../keys/node-keys.js';
import { checkConfig, ConfigError } from '../kernel/config/errors.js';
import type { EventBus } from '../kernel/events.js';
import { PluginHost, type HostState } from '../kernel/host.js';
import { readTlsCredentials } from '../kernel/http/tls.js';
import type { Logger } from '../kernel/log.js';
import type { AnyPlugin, ExitRequest, NodeSettings } from '../kernel/plugin.js';
import { orderPlugins } from '../kernel/plugins/order.js';
import { loadPlugins } from '../kernel/plugins/load.js';
import { VERSION } from '../kernel/version.js';
import type { ResolvedConfig } from './config.js';
import { nodeInfoMethod } from './node-info.js';
import { alwaysLoadedPlugins, pluginRequests, type PluginCatalog } from './presets.js';

export interface NodeOptions {
  readonly config: ResolvedConfig;
  readonly catalog: PluginCatalog;
  readonly log: Logger;
  /** Folder that relative plugin paths are resolved from (the config file's). */
  readonly baseDir?: string;
  /** Plugin values added after the configured ones (embedding and tests). */
  readonly plugins?: readonly AnyPlugin[];
}

export type NodeState = HostState;

/**
 * The composition root: an svc node is the kernel's plugin host running the chain, the keystore and
 * the peer-to-peer network (every node), the plugins its role, network and flags enable, and those its
 * config names. `create` resolves and checks all of that without side effects; the host does the rest.
 */
export class SvcNode {
  private constructor(
    readonly host: PluginHost,
    readonly genesis: GenesisSpec,
    /** A throw-away node's own working dir, removed when it stops (see `create`). */
    private readonly scratchDir?: string,
  ) {}

  static async create(options: NodeOptions): Promise<SvcNode> {
    const { node, slices, origins } = options.config;
    node.p2p.bootstrapPeers.forEach((address, i) => {
      const problem = bootstrapAddressProblem(address);
      if (problem) throw new ConfigError(`p2p.bootstrapPeers[${i}]: "${address}" ${problem}`);
    });
    const genesis =
      node.network === 'devnet' && !node.genesis ? devnetGenesisSpec() : readGenesisFile(node.genesis!, node.network);
    const configured = await loadPlugins(
      pluginRequests(node, options.catalog),
      options.catalog,
      options.baseDir ?? process.cwd(),
    );
    const all = orderPlugins([
      ...alwaysLoadedPlugins(node, genesis, (slices.validator as { keyFile?: string } | undefined)?.keyFile),
      ...configured,
      ...(options.plugins ?? []),
    ]);
    const enabled = new Set(all.map((p) => p.name));
    for (const key of Object.keys(slices)) {
      if (enabled.has(key)) continue;
      if (key in options.catalog.plugins) {
        options.log.warn(
          { plugin: key },
          `config for plugin "${key}" is ignored: the plugin is not enabled on this node`,
        );
        continue;
      }
      throw new ConfigError(`unknown config key "${key}": not a node setting and not an enabled plugin's name`);
    }
    const sliceOf = (definition: AnyPlugin): unknown => {
      const fromNode = definition.configFromNode?.(node);
      return fromNode ? { ...fromNode, ...(slices[definition.name] as object | undefined) } : slices[definition.name];
    };
    const plugins = all.map((definition) => ({
      definition,
      config: checkConfig(
        definition.config ?? Type.Object({}, { additionalProperties: false }),
        sliceOf(definition) ?? {},
        definition.name,
        origins,
      ),
    }));
    // A throw-away node (storage memory) keeps nothing: what it must put on disk (its lock, its keys,
    // objects in transit) goes to a dir of its own under the OS temp dir, made at start and removed at
    // stop; --data-dir is not touched.
    const scratchDir = node.storage === 'memory' ? join(tmpdir(), `svc-memory-${randomUUID()}`) : undefined;
    const settings: NodeSettings = {
      network: node.network,
      role: node.role,
      dataDir: scratchDir ?? node.dataDir,
      version: VERSION,
    };
    let created: SvcNode | undefined;
    const host = new PluginHost({
      settings,
      storage: node.storage,
      rpc: {
        bind: node.rpc.bind,
        maxBody: node.rpc.maxBody,
        maxBatch: node.rpc.maxBatch,
        validateResults: node.rpc.validateResults,
        trustedProxies: node.rpc.trustedProxies,
        corsOrigins: node.rpc.corsOrigins ?? (node.guardrails ? [] : ['*']),
        maxSubscriptionsPerConnection: node.rpc.maxSubscriptionsPerConnection,
        webSocket: {
          maxConnections: node.rpc.maxWsConnections,
          maxConnectionsPerClient: node.rpc.maxWsConnectionsPerClient,
          idleTimeoutMs: node.rpc.wsIdleTimeoutSeconds * 1000,
          maxBuffered: node.rpc.wsMaxBufferedBytes,
        },
        // Read lazily at start, so a bad file is reported like any other start failure.
        get tls() {
          return node.rpc.tls ? readTlsCredentials(node.rpc.tls) : undefined;
        },
      },
      plugins,
      log: options.log,
      methods: () => [nodeInfoMethod(() => created!.info())],
    });
    created = new SvcNode(host, genesis, scratchDir);
    return created;
  }

  get settings(): NodeSettings {
    return this.host.settings;
  }

  get state(): NodeState {
    return this.host.state;
  }

  get rpcUrl(): string {
    return this.host.rpcUrl;
  }

  get events(): EventBus {
    return this.host.events;
  }

  get webSocketConnections(): number {
    return this.host.webSocketConnections;
  }

  /** The enabled plugins, in start order. */
  get plugins(): readonly { readonly definition: AnyPlugin }[] {
    return this.host.definitions.map((definition) => ({ definition }));
  }

  /** The data dir's keys (after start). */
  get keys(): NodeKeys {
    if (this.host.state === 'created') throw new Error('node keys are loaded at start');
    return this.host.service<NodeKeys>('keys');
  }

  /** A plugin's service by capability (embedding and tests). */
  service<T>(capability: string): T {
    return this.host.service<T>(capability);
  }

  notReadyReason(): string | undefined {
    return this.host.notReadyReason();
  }

  /** Resolves when a plugin asks the node to exit (a halt height, a rules version this release lacks): stop it, then exit with its code. */
  get exitRequested(): Promise<ExitRequest> {
    return this.host.exitRequested;
  }

  start(): Promise<void> {
    return this.host.start();
  }

  async stop(): Promise<void> {
    await this.host.stop();
    if (this.scratchDir) rmSync(this.scratchDir, { recursive: true, force: true });
  }

  /** The rules version of the block after the head. */
  private chainRulesVersion(): number {
    const chain = this.service<Chain>('chain');
    return chain.rulesVersionAt(chain.head.height + 1);
  }

  /** `svc_nodeInfo`. */
  private info() {
    const definitions = this.host.definitions;
    return {
      version: VERSION,
      network: this.settings.network,
      chainId: this.genesis.chainId,
      rulesVersion: this.chainRulesVersion(),
      knownRulesVersions: RULES_VERSIONS.map((v) => v.version),
      role: this.settings.role,
      plugins: definitions.map((p) => ({ name: p.name, version: p.version })),
      capabilities: [...new Set(definitions.flatMap((p) => [p.name, ...(p.provides ?? [])]))].sort(),
      peerId: this.keys.peerId,
      listenAddresses: this.service<P2pService>('p2p').listenAddresses,
      operator: this.keys.operator.address,
      synced: this.notReadyReason() === undefined,
    };
  }
}
