import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { NodeConfig, Role } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { AnyPlugin } from '../plugin.js';
import { assertPluginDefinition, PluginDefinitionError } from './validate.js';

/** The first-party plugins by name, and which of them each role enables. */
export interface PluginCatalog {
  readonly plugins: Readonly<Record<string, () => Promise<AnyPlugin>>>;
  readonly roles: Readonly<Record<Role, readonly string[]>>;
  /** Plugins every node of a network enables (the devnet's faucet). */
  readonly networks: Readonly<Record<string, readonly string[]>>;
  /** Plugins every node enables because their transaction kinds are chain rules (provider registries). */
  readonly consensus?: readonly string[];
  /** Per-node capabilities every node offers, switched on at run time (provider registrations). */
  readonly capabilities?: readonly string[];
  /** Names that options already refer to but whose plugin is not built yet: such options are stored and reported. */
  readonly planned: ReadonlySet<string>;
}

export interface PluginRequest {
  /** A first-party name, an npm package name, or a file path. */
  readonly spec: string;
  /** Why it is loaded: `role validator`, `--receipt-archive true`, `config "plugins"`. */
  readonly reason: string;
}

/** Which plugins the config asks for: the role's preset, then the shortcuts, then the config's list. */
export function pluginRequests(node: NodeConfig, catalog: PluginCatalog): PluginRequest[] {
  const requests: PluginRequest[] = (catalog.consensus ?? []).map((spec) => ({ spec, reason: 'chain rules' }));
  for (const spec of catalog.capabilities ?? []) requests.push({ spec, reason: 'every node' });
  for (const spec of catalog.roles[node.role]) requests.push({ spec, reason: `role ${node.role}` });
  for (const spec of catalog.networks[node.network] ?? []) requests.push({ spec, reason: `network ${node.network}` });
  if (node.chain.receiptArchive) requests.push({ spec: 'archive', reason: '--receipt-archive true' });
  if (node.guardrails) requests.push({ spec: 'auth', reason: '--guardrails true' });
  if (effectiveRateLimit(node).limit > 0) requests.push({ spec: 'rate-limit', reason: node.guardrails ? '--guardrails true' : '--rate-limit' });
  for (const spec of node.plugins) requests.push({ spec, reason: 'config "plugins"' });
  const seen = new Set<string>();
  return requests.filter((request) => (seen.has(request.spec) ? false : (seen.add(request.spec), true)));
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
export async function loadPlugins(requests: readonly PluginRequest[], catalog: PluginCatalog, baseDir: string, log: Logger): Promise<AnyPlugin[]> {
  const loaded: AnyPlugin[] = [];
  for (const request of requests) {
    const firstParty = catalog.plugins[request.spec];
    if (firstParty) {
      loaded.push(await firstParty());
      continue;
    }
    if (catalog.planned.has(request.spec)) {
      log.warn({ plugin: request.spec, reason: request.reason }, `plugin "${request.spec}" (${request.reason}) is not built yet in this version: the option is stored, nothing enforces it`);
      continue;
    }
    let module: unknown;
    try {
      module = await importModule(request.spec, baseDir);
    } catch (error) {
      const known = Object.keys(catalog.plugins).join(', ');
      throw new PluginDefinitionError(`plugin "${request.spec}" (${request.reason}): cannot load it (${(error as Error).message.split('\n')[0]}); first-party plugins are: ${known}`);
    }
    const exported = (module as { default?: unknown }).default ?? module;
    loaded.push(assertPluginDefinition(exported, `plugin "${request.spec}"`));
  }
  return loaded;
}

/** Rate limits: off by default; with guardrails, 600 calls per 60 s with a burst of 100 unless set. */
export function effectiveRateLimit(node: NodeConfig): { limit: number; windowSeconds: number; burst: number } {
  return {
    limit: node.rateLimit.limit ?? (node.guardrails ? 600 : 0),
    windowSeconds: node.rateLimit.windowSeconds,
    burst: node.rateLimit.burst ?? (node.guardrails ? 100 : 0),
  };
}
