import Type from 'typebox';
import { devnetBaseGenesis } from '../chain/genesis.js';
import { pluginMethods, pluginSubscriptions, type AnyPlugin } from '../kernel/plugin.js';
import { pluginTxKinds } from '../chain/contract.js';
import { resolveConfig } from './config.js';
import { alwaysLoadedPlugins, type PluginCatalog } from './presets.js';

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
  // The same definitions a node with the default config runs; describing them runs nothing.
  const out = alwaysLoadedPlugins(resolveConfig({}).node, devnetBaseGenesis()).map((plugin) =>
    describePlugin(plugin, ['always']),
  );
  for (const [name, load] of Object.entries(catalog.plugins)) {
    const roles = (catalog.consensus ?? []).includes(name)
      ? ['always (chain rules)']
      : (catalog.capabilities ?? []).includes(name)
        ? ['always (switched on by registering)']
        : Object.entries(catalog.roles)
            .filter(([, names]) => names.includes(name))
            .map(([role]) => role);
    out.push(describePlugin(await load(), roles));
  }
  return out;
}
