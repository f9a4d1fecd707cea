import { KERNEL_API, type AnyPlugin } from '../plugin.js';

export class PluginDefinitionError extends Error {
  override name = 'PluginDefinitionError';
}

const NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** Fields that hold data; every other field of a definition is a hook (the kernel's, or one a domain module adds). */
const DATA_FIELDS = new Set([
  'name',
  'version',
  'description',
  'kernelApi',
  'requires',
  'provides',
  'after',
  'config',
  'namespaces',
  'events',
  'errors',
  'routes',
  'guards',
]);

function validErrors(errors: unknown): boolean {
  if (typeof errors !== 'object' || errors === null || Array.isArray(errors)) return false;
  return Object.values(errors).every((declared: unknown) => {
    const { code, description, httpStatus } = (declared ?? {}) as Record<string, unknown>;
    return (
      Number.isInteger(code) &&
      typeof description === 'string' &&
      (httpStatus === undefined || (Number.isInteger(httpStatus) && (httpStatus as number) >= 400))
    );
  });
}

/** Checks that a loaded module's default export is a plugin definition, before anything of it runs. */
export function assertPluginDefinition(value: unknown, source: string): AnyPlugin {
  if (typeof value !== 'object' || value === null)
    throw new PluginDefinitionError(`${source}: does not export a plugin (use definePlugin and export it as default)`);
  const plugin = value as Record<string, unknown>;
  const name = plugin.name;
  if (typeof name !== 'string' || !NAME.test(name))
    throw new PluginDefinitionError(`${source}: plugin "name" must match ${NAME}`);
  if (typeof plugin.version !== 'string' || plugin.version.length === 0)
    throw new PluginDefinitionError(`plugin "${name}": "version" must be a non-empty string`);
  if (typeof plugin.description !== 'string')
    throw new PluginDefinitionError(`plugin "${name}": "description" must be a string`);
  for (const list of ['requires', 'provides', 'after'] as const) {
    const items = plugin[list];
    if (items !== undefined && !(Array.isArray(items) && items.every((i) => typeof i === 'string' && i.length > 0))) {
      throw new PluginDefinitionError(`plugin "${name}": "${list}" must be an array of names`);
    }
  }
  for (const [field, value] of Object.entries(plugin)) {
    if (!DATA_FIELDS.has(field) && value !== undefined && typeof value !== 'function')
      throw new PluginDefinitionError(`plugin "${name}": "${field}" must be a function`);
  }
  if (
    plugin.guards !== undefined &&
    !(
      Array.isArray(plugin.guards) && plugin.guards.every((g) => typeof (g as { check?: unknown }).check === 'function')
    )
  ) {
    throw new PluginDefinitionError(`plugin "${name}": "guards" must be an array of { name, summary, check }`);
  }
  if (plugin.errors !== undefined && !validErrors(plugin.errors))
    throw new PluginDefinitionError(
      `plugin "${name}": "errors" must be an object of { code: integer, description: string, httpStatus?: integer } by name`,
    );
  if (plugin.routes !== undefined && !Array.isArray(plugin.routes))
    throw new PluginDefinitionError(`plugin "${name}": "routes" must be an array`);
  if (plugin.namespaces !== undefined && !Array.isArray(plugin.namespaces))
    throw new PluginDefinitionError(`plugin "${name}": "namespaces" must be an array`);
  if (plugin.kernelApi !== KERNEL_API) {
    const declared =
      plugin.kernelApi === undefined
        ? 'declares no kernel API version ("kernelApi")'
        : `was written for kernel API ${String(plugin.kernelApi)}`;
    throw new PluginDefinitionError(`plugin "${name}" ${declared}; this node's kernel API is ${KERNEL_API}`);
  }
  return value as AnyPlugin;
}
