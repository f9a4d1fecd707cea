import { genesisHash, withPluginGenesis, type GenesisSpec } from '../chain/genesis.js';
import { devnetGenesisSpec } from './devnet-genesis-spec.js';
import type { AnyPlugin } from '../kernel/plugin.js';
import omp from '../plugins/omp/index.js';
import oon from '../plugins/oon/index.js';
import staking from '../plugins/staking/index.js';
import evm from '../plugins/evm/index.js';
import upgrade from '../plugins/upgrade/index.js';
import { CONSENSUS_PLUGINS } from './catalog.js';

/** Each chain-rule plugin the catalog names, loaded here at once: the devnet's block 0 holds their genesis entries. */
const CHAIN_RULES: Record<(typeof CONSENSUS_PLUGINS)[number], AnyPlugin> = {
  oon: oon as AnyPlugin,
  omp: omp as AnyPlugin,
  staking: staking as AnyPlugin,
  evm: evm as AnyPlugin,
  upgrade: upgrade as AnyPlugin,
};

/** The chain-rule plugins every node loads, in the catalog's order: what a genesis and an export of state are made by. */
export const CHAIN_RULE_PLUGINS: readonly AnyPlugin[] = CONSENSUS_PLUGINS.map((name) => CHAIN_RULES[name]);

/** Those with genesis entries: part of the devnet's block 0. */
export const DEVNET_GENESIS_PLUGINS: readonly AnyPlugin[] = CHAIN_RULE_PLUGINS.filter(
  (plugin) => plugin.genesis !== undefined,
);

/** The built-in devnet genesis as every devnet node computes it: the devnet's own part and the chain rules' entries. */
export function devnetGenesis(): GenesisSpec {
  return withPluginGenesis(devnetGenesisSpec(), DEVNET_GENESIS_PLUGINS);
}

/** The devnet's genesis hash (what `svc-node init` prints). */
export function devnetGenesisHash(): string {
  return genesisHash(devnetGenesis());
}
