import { join } from 'node:path';
import { chainPlugin } from '../chain/plugin.js';
import type { GenesisSpec } from '../chain/genesis.js';
import { keystorePlugin } from '../keys/plugin.js';
import { devnetValidatorIdentity } from '../keys/devnet-identity.js';
import { keyPassphrase } from '../keys/node-keys.js';
import type { AnyPlugin } from '../kernel/plugin.js';
import type { FirstPartyPlugins, PluginRequest } from '../kernel/plugins/load.js';
import { p2pPlugin } from '../p2p/plugin.js';
import type { NodeConfig } from './config-schema.js';
import type { Role } from './config-values.js';

/** Where the journal of acknowledged transactions lives: none on a throw-away node or when turned off. */
function journalSettings(node: NodeConfig): { path: string; maxBytes: number } | undefined {
  if (node.storage === 'memory' || !node.chain.txJournal) return undefined;
  return { path: join(node.dataDir, 'pending-transactions.journal'), maxBytes: node.chain.txJournalMaxBytes };
}

/** The first-party plugins by name, and which of them each role enables. */
export interface PluginCatalog extends FirstPartyPlugins {
  readonly roles: Readonly<Record<Role, readonly string[]>>;
  /** Plugins every node of a network enables (the devnet's faucet). */
  readonly networks: Readonly<Record<string, readonly string[]>>;
  /** Plugins every node enables because their transaction kinds are chain rules (provider registries). */
  readonly consensus?: readonly string[];
  /** Per-node capabilities every node offers, switched on at run time (provider registrations). */
  readonly capabilities?: readonly string[];
  /** Plugins whose methods answer on every node, whatever its config (dev mode's, which refuse elsewhere). */
  readonly everyNode?: readonly string[];
}

/** Which plugins the config asks for: the role's preset, then the shortcuts, then the config's list. */
export function pluginRequests(node: NodeConfig, catalog: PluginCatalog): PluginRequest[] {
  const requests: PluginRequest[] = (catalog.consensus ?? []).map((spec) => ({ spec, reason: 'chain rules' }));
  for (const spec of [...(catalog.capabilities ?? []), ...(catalog.everyNode ?? [])])
    requests.push({ spec, reason: 'every node' });
  for (const spec of catalog.roles[node.role]) requests.push({ spec, reason: `role ${node.role}` });
  for (const spec of catalog.networks[node.network] ?? []) requests.push({ spec, reason: `network ${node.network}` });
  if (node.chain.receiptArchive) requests.push({ spec: 'archive', reason: '--receipt-archive true' });
  if (node.guardrails) requests.push({ spec: 'auth', reason: '--guardrails true' });
  // The explorer page answers on every node, but not on one with guardrails unless its config lists it.
  else requests.push({ spec: 'explorer', reason: 'every node without guardrails' });
  // The rate-limit plugin works out its own defaults (on under guardrails); it is loaded whenever they or --rate-limit may apply.
  if (node.guardrails || node.rateLimit.limit !== undefined)
    requests.push({ spec: 'rate-limit', reason: node.guardrails ? '--guardrails true' : '--rate-limit' });
  for (const spec of node.plugins) requests.push({ spec, reason: 'config "plugins"' });
  const seen = new Set<string>();
  return requests.filter((request) => {
    if (seen.has(request.spec)) return false;
    seen.add(request.spec);
    return true;
  });
}

/** What every node runs, whatever its config: the keystore, the chain and the peer-to-peer network. */
export function alwaysLoadedPlugins(node: NodeConfig, genesis: GenesisSpec, validatorKeyFile?: string): AnyPlugin[] {
  // The built-in devnet's validator node (the devnet key, no key file of its own) is the devnet's
  // compute and storage provider from block 0: it holds the identity its genesis registrations name.
  const devnetValidator =
    node.network === 'devnet' && !node.genesis && node.role === 'validator' && validatorKeyFile === undefined;
  return [
    keystorePlugin(() => keyPassphrase(node.passphraseFile), devnetValidator ? devnetValidatorIdentity : undefined),
    chainPlugin(genesis, {
      historyBlocks: node.chain.historyBlocks,
      journal: journalSettings(node),
      ...(node.chain.haltHeight !== undefined ? { haltHeight: node.chain.haltHeight } : {}),
      genesisVersionFromDataDir: node.network === 'devnet' && !node.genesis,
    }),
    p2pPlugin(node.p2p),
  ] as AnyPlugin[];
}
