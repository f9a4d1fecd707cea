import type { AnyPlugin } from '../plugin.js';

export class PluginDefinitionError extends Error {
  override name = 'PluginDefinitionError';
}

const NAME = /^[a-z][a-z0-9-]{0,63}$/;
const HOOKS = ['init', 'start', 'stop', 'rpc', 'txKinds', 'endBlock', 'subscriptions', 'notReady', 'health', 'configFromNode'] as const;

/** Checks that a loaded module's default export is a plugin definition, before anything of it runs. */
export function assertPluginDefinition(value: unknown, source: string): AnyPlugin {
  if (typeof value !== 'object' || value === null) throw new PluginDefinitionError(`${source}: does not export a plugin (use definePlugin and export it as default)`);
  const plugin = value as Record<string, unknown>;
  const name = plugin.name;
  if (typeof name !== 'string' || !NAME.test(name)) throw new PluginDefinitionError(`${source}: plugin "name" must match ${NAME}`);
  if (typeof plugin.version !== 'string' || plugin.version.length === 0) throw new PluginDefinitionError(`plugin "${name}": "version" must be a non-empty string`);
  if (typeof plugin.description !== 'string') throw new PluginDefinitionError(`plugin "${name}": "description" must be a string`);
  for (const list of ['requires', 'provides', 'after'] as const) {
    const items = plugin[list];
    if (items !== undefined && !(Array.isArray(items) && items.every((i) => typeof i === 'string' && i.length > 0))) {
      throw new PluginDefinitionError(`plugin "${name}": "${list}" must be an array of names`);
    }
  }
  for (const hook of HOOKS) {
    if (plugin[hook] !== undefined && typeof plugin[hook] !== 'function') throw new PluginDefinitionError(`plugin "${name}": "${hook}" must be a function`);
  }
  if (plugin.guards !== undefined && !(Array.isArray(plugin.guards) && plugin.guards.every((g) => typeof (g as { check?: unknown }).check === 'function'))) {
    throw new PluginDefinitionError(`plugin "${name}": "guards" must be an array of { name, summary, check }`);
  }
  if (plugin.routes !== undefined && !Array.isArray(plugin.routes)) throw new PluginDefinitionError(`plugin "${name}": "routes" must be an array`);
  if (plugin.namespaces !== undefined && !Array.isArray(plugin.namespaces)) throw new PluginDefinitionError(`plugin "${name}": "namespaces" must be an array`);
  return value as AnyPlugin;
}
