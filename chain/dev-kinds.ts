import { TxFailure } from './contract.js';
import type { GenesisSpec } from './genesis.js';
import type { DomainErrorName } from '../sdk/errors.js';

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

/** Why a dev-mode action cannot be taken on the state it reads, or undefined. */
export type DevRefusal<P> = (
  payload: P,
  read: (key: string) => Uint8Array | undefined,
) => { readonly error: DomainErrorName; readonly reason: string } | undefined;

/** What a plugin serving dev-mode kinds has: the chain it reads, and whether this node is in dev mode. */
interface DevKindHost {
  readonly dev: boolean;
  readonly chain: { readonly genesis: GenesisSpec; readonly state: { get(key: string): Uint8Array | undefined } };
}

/**
 * A dev-mode kind's `authorize` and `admit`: signed by the devnet's validator, admitted only in dev
 * mode and only when the head's state lets the action happen (else refused at submission with the
 * reason, nothing mined); `check` runs `refusal` again against the block's state at execution.
 */
export function devKindGuards<P>(kind: string, refusal: DevRefusal<P>) {
  const check = (payload: P, read: (key: string) => Uint8Array | undefined): void => {
    const refused = refusal(payload, read);
    if (refused) throw new TxFailure(refused.error, refused.reason);
  };
  return {
    authorize: (tx: { from: string }, _payload: P, service: DevKindHost): string | undefined =>
      devSignerRefusal(kind, service.chain.genesis, tx.from),
    admit: (payload: P, service: DevKindHost): void => {
      refuseUnlessDevMode(kind, service.dev);
      check(payload, (key) => service.chain.state.get(key));
    },
    check,
  };
}
