import type { AnyPlugin } from '../plugin.js';

export class PluginGraphError extends Error {
  override name = 'PluginGraphError';
}

/**
 * Orders plugins so every plugin comes after the providers of what it requires. Refuses duplicate
 * plugin names, a capability provided twice, an unmet requirement and a cycle, naming the culprits.
 * Among plugins free to go, the given order is kept, so boot order is deterministic.
 */
export function orderPlugins(plugins: readonly AnyPlugin[]): AnyPlugin[] {
  const providers = new Map<string, AnyPlugin>();
  for (const plugin of plugins) {
    for (const capability of new Set([plugin.name, ...(plugin.provides ?? [])])) {
      const other = providers.get(capability);
      if (other) {
        throw new PluginGraphError(
          other.name === plugin.name && capability === plugin.name
            ? `plugin "${plugin.name}" is loaded twice`
            : `capability "${capability}" is provided by both plugin "${other.name}" and plugin "${plugin.name}"`,
        );
      }
      providers.set(capability, plugin);
    }
  }
  const dependencies = new Map<AnyPlugin, AnyPlugin[]>();
  for (const plugin of plugins) {
    const needs: AnyPlugin[] = [];
    for (const capability of plugin.requires ?? []) {
      const provider = providers.get(capability);
      if (!provider)
        throw new PluginGraphError(
          `plugin "${plugin.name}" requires "${capability}", which no enabled plugin provides`,
        );
      if (provider !== plugin) needs.push(provider);
    }
    for (const name of plugin.after ?? []) {
      const earlier = providers.get(name);
      if (earlier && earlier !== plugin && !needs.includes(earlier)) needs.push(earlier);
    }
    dependencies.set(plugin, needs);
  }
  const ordered: AnyPlugin[] = [];
  const state = new Map<AnyPlugin, 'visiting' | 'done'>();
  const visit = (plugin: AnyPlugin, path: AnyPlugin[]): void => {
    const seen = state.get(plugin);
    if (seen === 'done') return;
    if (seen === 'visiting') {
      const cycle = [...path.slice(path.indexOf(plugin)), plugin].map((p) => p.name).join(' -> ');
      throw new PluginGraphError(`plugin dependency cycle: ${cycle}`);
    }
    state.set(plugin, 'visiting');
    for (const dependency of dependencies.get(plugin) ?? []) visit(dependency, [...path, plugin]);
    state.set(plugin, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}
