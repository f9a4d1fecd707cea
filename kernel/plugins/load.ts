import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyPlugin } from '../plugin.js';
import { assertPluginDefinition, PluginDefinitionError } from './validate.js';

export interface PluginRequest {
  /** A first-party name, an npm package name, or a file path. */
  readonly spec: string;
  /** Why it is loaded (`role validator`, `config "plugins"`), for error messages. */
  readonly reason: string;
}

/** How first-party names are found: the composition root's catalog. */
export interface FirstPartyPlugins {
  readonly plugins: Readonly<Record<string, () => Promise<AnyPlugin>>>;
}

function isPath(spec: string): boolean {
  return spec.startsWith('.') || isAbsolute(spec);
}

async function importModule(spec: string, baseDir: string): Promise<unknown> {
  if (isPath(spec)) return import(pathToFileURL(resolve(baseDir, spec)).href);
  // A package is looked up from the operator's directory first, then from svc-node's own.
  try {
    const fromBase = createRequire(join(resolve(baseDir), 'package.json')).resolve(spec);
    return await import(pathToFileURL(fromBase).href);
  } catch {
    return import(spec);
  }
}

/**
 * Loads what was requested. First-party names come from the catalog; anything else is imported as
 * a path (relative to `baseDir`, the config file's folder) or a package, and its default export checked.
 */
export async function loadPlugins(
  requests: readonly PluginRequest[],
  catalog: FirstPartyPlugins,
  baseDir: string,
): Promise<AnyPlugin[]> {
  const loaded: AnyPlugin[] = [];
  for (const request of requests) {
    const firstParty = catalog.plugins[request.spec];
    if (firstParty) {
      loaded.push(await firstParty());
      continue;
    }
    let module: unknown;
    try {
      module = await importModule(request.spec, baseDir);
    } catch (error) {
      const known = Object.keys(catalog.plugins).join(', ');
      throw new PluginDefinitionError(
        `plugin "${request.spec}" (${request.reason}): cannot load it (${(error as Error).message.split('\n')[0]}); first-party plugins are: ${known}`,
      );
    }
    const exported = (module as { default?: unknown }).default ?? module;
    loaded.push(assertPluginDefinition(exported, `plugin "${request.spec}"`));
  }
  return loaded;
}
