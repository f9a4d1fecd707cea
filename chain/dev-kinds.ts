import { TxFailure } from './contract.js';
import type { GenesisSpec } from './genesis.js';

/**
 * Dev mode's transaction kinds (the EVM's state edits, OON's job controls, OMP's deal controls) are
 * valid only on the devnet and only signed by its validator: a rule of the chain every node checks
 * when it executes a block. Why one is not, or undefined.
 */
export function devSignerRefusal(kind: string, genesis: GenesisSpec, from: string): string | undefined {
  return genesis.network === 'devnet' && from === genesis.validator
    ? undefined
    : `${kind} is a dev-mode transaction: only the devnet's validator signs one`;
}

/**
 * A node admits dev-mode transactions only when started with `--dev`: its own policy, not a rule of
 * the chain (the devnet validator's key is public, so a plain devnet node refuses them).
 */
export function refuseUnlessDevMode(kind: string, dev: boolean): void {
  if (!dev) throw new TxFailure('dev_mode_off', `${kind}: this node is not in dev mode (svc-node start --dev)`);
}
