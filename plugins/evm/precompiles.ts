import type { TSchema } from 'typebox';
import { decodeFunctionData, type Abi, type DecodeFunctionDataReturnType, type Hex } from 'viem';
import { toHex } from '../../sdk/bytes.js';
import type { Address } from '../../sdk/address.js';
import type { PluginEntry } from '../../kernel/plugin.js';
import type { BlockContext } from '../../chain/contract.js';
import type { Log } from '../../chain/receipts.js';

/**
 * What a plugin adds to the contract to implement contracts at fixed addresses in the EVM: the evm
 * plugin runs them; it does not know them. A plugin that declares precompiles names `evm` in its
 * `stateDelegates`, so what they change under its prefix is written by the EVM's transactions.
 */
declare module '../../kernel/plugin.js' {
  // Type parameters as in the kernel's declaration: the hooks see the plugin's service.
  interface PluginDefinition<C extends TSchema, Svc> {
    /** Precompiled contracts this plugin implements, built with the given factory so they see the service's type. */
    precompiles?(precompile: PrecompileFactory<Svc>): readonly Precompile[];
  }
}

/** One call of a precompile, as the EVM made it. */
export interface PrecompileCall {
  /** Who called: the contract whose code made the call (an account, for a transaction or eth_call straight to it). */
  readonly caller: Address;
  readonly input: Uint8Array;
  /** OMC base units sent with the call (already moved to the precompile's address). */
  readonly value: bigint;
  /** A STATICCALL, or a call made inside one: nothing may change. */
  readonly isStatic: boolean;
  /** Reached through DELEGATECALL or CALLCODE: it runs in the calling contract's context. */
  readonly delegated: boolean;
  /** Gas the call may use. */
  readonly gasLimit: bigint;
  /**
   * The block, accounts and consensus state as the transaction sees them at this call. What the
   * precompile changes is undone with the call if it, or a caller, reverts. Writes: the precompile
   * owner's keys only.
   */
  readonly ctx: BlockContext;
}

/** What a call returned: the gas it charged and its ABI-encoded output. */
export interface PrecompileOutcome {
  readonly gas: bigint;
  readonly output: Uint8Array;
}

/** A call refused: it reverts with `Error(reason)` after charging `gas` (what checking it cost). */
export class PrecompileRevert extends Error {
  override name = 'PrecompileRevert';
  constructor(
    reason: string,
    readonly gas: bigint,
  ) {
    super(reason);
  }
}

/**
 * Refuses what a function that spends the calling contract's OMC cannot serve: a static context (it
 * changes state), DELEGATECALL or CALLCODE (it would not know which contract pays), and OMC sent along
 * (the escrow is taken from the caller's balance). Each refusal costs `refusedGas`.
 */
export function requirePayingCall(call: PrecompileCall, fn: string, refusedGas: bigint): void {
  if (call.isStatic)
    throw new PrecompileRevert(
      `${fn} changes state: it cannot be called in a static context (STATICCALL or a view)`,
      refusedGas,
    );
  if (call.delegated)
    throw new PrecompileRevert(
      `${fn} is called directly: through DELEGATECALL or CALLCODE it would not know which contract pays`,
      refusedGas,
    );
  if (call.value > 0n)
    throw new PrecompileRevert(
      `send no OMC with ${fn}: the escrow is taken from the calling contract's balance`,
      refusedGas,
    );
}

/** A call's input decoded by the precompile's ABI; input that is no call of it reverts, naming the functions there are. */
export function decodePrecompileCall<const A extends Abi>(
  abi: A,
  input: Uint8Array,
  refusedGas: bigint,
): DecodeFunctionDataReturnType<A> {
  try {
    return decodeFunctionData({ abi, data: toHex(input) as Hex });
  } catch {
    const names = abi
      .filter((item) => item.type === 'function')
      .map((item) => `${item.name}(${item.inputs.map((input) => input.type).join(',')})`);
    throw new PrecompileRevert(`invalid_params: the input is not a call of ${names.join(', ')}`, refusedGas);
  }
}

/** A contract call the chain makes at the end of a block on a plugin's behalf (a callback). */
export interface ContractCallback {
  /** What the call answers, for its system transaction's hash: `<owner>.<what> <id>` (`oon.job 0x…`). */
  readonly origin: string;
  /** The contract called. */
  readonly to: Address;
  /** Who the contract sees as `msg.sender`: the precompile's address. */
  readonly from: Address;
  readonly data: Uint8Array;
  readonly gasLimit: bigint;
  /**
   * Records how it went, in the same block (the owner's keys, through `ctx`); `hash` is its system
   * transaction's (undefined: not called, or a block of rules before system transactions).
   */
  done(result: CallbackResult, ctx: BlockContext, hash: string | undefined): void;
}

export interface CallbackResult {
  /** `no_code`: nothing to call at the address (never deployed, or self-destructed); not called. */
  readonly status: 'success' | 'reverted' | 'out_of_gas' | 'failed' | 'no_code';
  readonly gasUsed: bigint;
  /** Why it reverted or failed, in words (a revert's reason decoded). */
  readonly reason?: string;
  /** What the contract logged (none when it reverted). */
  readonly logs: readonly Log[];
}

/** One function of a precompile as the docs show it. */
export interface PrecompileFunction {
  /** Its Solidity declaration, e.g. `function jobStatus(bytes32 jobId) view returns (...)`. */
  readonly signature: string;
  /** What it costs: a number, or how it is computed. */
  readonly gas: string;
  readonly summary: string;
}

export interface PrecompileSpec<Svc> {
  /** `0x` and 40 hex digits. */
  readonly address: string;
  readonly name: string;
  readonly summary: string;
  readonly functions: readonly PrecompileFunction[];
  /**
   * Answers a call. Synchronous, and a function of the call and the state it reads only: the EVM
   * may run it again from the start (when a value must first be read from disk). Throw
   * `PrecompileRevert` (or a TxFailure, charged `revertGas`) to revert with a reason.
   */
  run(call: PrecompileCall, service: Svc): PrecompileOutcome;
  /** Gas a call refused by a TxFailure is charged. */
  readonly revertGas: bigint;
  /** Contract calls due at this block's end, after the owner's own end step (callbacks). */
  callbacks?(ctx: BlockContext, service: Svc): readonly ContractCallback[];
}

/** A precompile with its types erased, and its owner's service. */
export interface Precompile {
  readonly address: string;
  readonly name: string;
  readonly summary: string;
  readonly functions: readonly PrecompileFunction[];
  readonly revertGas: bigint;
  run(call: PrecompileCall, service: unknown): PrecompileOutcome;
  callbacks?(ctx: BlockContext, service: unknown): readonly ContractCallback[];
}

export type PrecompileFactory<Svc> = (spec: PrecompileSpec<Svc>) => Precompile;

/** A precompile as the EVM runs it: with its owner (whose keys it writes) and the owner's service. */
export interface RegisteredPrecompile {
  readonly spec: Precompile;
  readonly owner: string;
  readonly service: () => unknown;
}

const ADDRESS = /^0x[0-9a-f]{40}$/;

/** A plugin's precompiles, read from its definition without running it. */
export function pluginPrecompiles(plugin: PluginEntry['definition']): readonly Precompile[] {
  const declare = plugin.precompiles as ((factory: (spec: unknown) => Precompile) => readonly Precompile[]) | undefined;
  return declare?.((spec) => spec as Precompile) ?? [];
}

/** Every enabled plugin's precompiles, refusing a malformed or taken address and one whose owner did not delegate its keys to the EVM. */
export function collectPrecompiles(plugins: readonly PluginEntry[]): RegisteredPrecompile[] {
  const found = new Map<string, RegisteredPrecompile>();
  for (const { definition, service } of plugins) {
    for (const spec of pluginPrecompiles(definition)) {
      if (!ADDRESS.test(spec.address))
        throw new Error(
          `plugin "${definition.name}": precompile ${spec.name} has address "${spec.address}"; it must be 0x and 40 lowercase hex digits`,
        );
      const taken = found.get(spec.address);
      if (taken)
        throw new Error(
          `plugin "${definition.name}": precompile ${spec.name} at ${spec.address} is already ${taken.spec.name} of plugin "${taken.owner}"`,
        );
      if (definition.name !== 'evm' && !(definition.stateDelegates as readonly string[] | undefined)?.includes('evm'))
        throw new Error(
          `plugin "${definition.name}" declares precompiles but does not name "evm" in stateDelegates: their writes could not be kept`,
        );
      found.set(spec.address, { spec, owner: definition.name, service });
    }
  }
  return [...found.values()];
}
