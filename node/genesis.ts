import { genesisHash, withPluginGenesis, type GenesisSpec } from '../chain/genesis.js';
import { devnetGenesisSpec } from './devnet-genesis-spec.js';
import type { AnyPlugin } from '../kernel/plugin.js';
import omp from '../plugins/omp/index.js';
import oon from '../plugins/oon/index.js';
import staking from '../plugins/staking/index.js';
import evm from '../plugins/evm/index.js';

/** The chain-rule plugins every node loads whose genesis entries are part of the devnet's block 0. */
export const DEVNET_GENESIS_PLUGINS: readonly AnyPlugin[] = [
  oon as AnyPlugin,
  omp as AnyPlugin,
  staking as AnyPlugin,
  evm as AnyPlugin,
];

/** The built-in devnet genesis as every devnet node computes it: the devnet's own part and the chain rules' entries. */
export function devnetGenesis(): GenesisSpec {
  return withPluginGenesis(devnetGenesisSpec(), DEVNET_GENESIS_PLUGINS);
}

/** The devnet's genesis hash (what `svc-node init` prints). */
export function devnetGenesisHash(): string {
  return genesisHash(devnetGenesis());
}
