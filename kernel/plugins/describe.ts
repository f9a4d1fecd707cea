import Type from 'typebox';
import { chainPlugin } from '../chain/plugin.js';
import { keystorePlugin } from '../keys/plugin.js';
import { OperatorKeys } from '../keys/node-keys.js';
import { p2pPlugin } from '../p2p/plugin.js';
import { TxKindRegistry } from '../chain/tx-kinds.js';
import { devnetGenesis } from '../chain/genesis.js';
import { pluginMethods, pluginSubscriptions, pluginTxKinds, type AnyPlugin } from '../plugin.js';
import type { PluginCatalog } from './load.js';

export interface PluginDescription {
  name: string;
  version: string;
  description: string;
  roles: string[];
  requires: string[];
  provides: string[];
  config: string[];
  methods: string[];
  routes: string[];
  /** Storage namespaces with their `key -> value` layout. */
  namespaces: { name: string; layout: string }[];
  txKinds: string[];
  subscriptions: string[];
  guards: string[];
}

/** What each plugin contributes, read from its definition without running it. */
export function describePlugin(plugin: AnyPlugin, roles: string[] = []): PluginDescription {
  const schema = (plugin.config ?? Type.Object({})) as { properties?: Record<string, unknown> };
  return {
    name: plugin.name,
    version: plugin.version,
    description: plugin.description,
    roles,
    requires: [...(plugin.requires ?? [])],
    provides: [...(plugin.provides ?? [])],
    config: Object.keys(schema.properties ?? {}).map((key) => `${plugin.name}.${key}`),
    methods: pluginMethods(plugin).map((m) => m.name),
    routes: (plugin.routes ?? []).map((r) => `${r.method} ${r.path}`),
    namespaces: (plugin.namespaces ?? []).map((n) => ({ name: n.name, layout: n.description })),
    txKinds: pluginTxKinds(plugin).map((k) => k.kind),
    subscriptions: pluginSubscriptions(plugin).map((k) => k.kind),
    guards: (plugin.guards ?? []).map((g) => g.name),
  };
}

export async function describePlugins(catalog: PluginCatalog): Promise<PluginDescription[]> {
  const kernel = [
    chainPlugin(devnetGenesis(), new TxKindRegistry()),
    keystorePlugin(() => new OperatorKeys([])),
    p2pPlugin({ host: '127.0.0.1', port: 0, bootstrapPeers: [], maxConnections: 1 }, () => {
      throw new Error('not started');
    }),
  ];
  const out = kernel.map((plugin) => describePlugin(plugin as AnyPlugin, ['always']));
  for (const [name, load] of Object.entries(catalog.plugins)) {
    const roles = (catalog.consensus ?? []).includes(name)
      ? ['always (chain rules)']
      : (catalog.capabilities ?? []).includes(name)
        ? ['always (switched on by registering)']
        : Object.entries(catalog.roles).filter(([, names]) => names.includes(name)).map(([role]) => role);
    out.push(describePlugin(await load(), roles));
  }
  return out;
}
