import type { CustomPrecompile, ExecResult, Message, PrecompileInput } from '@ethereumjs/evm';
import { EVMError } from './evm-error.js';
import { Address as EvmAddress } from '@ethereumjs/util';
import { encodeErrorResult } from 'viem';
import type { Address } from '../../sdk/address.js';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { isTxFailure } from '../../chain/contract.js';
import { MustRead, PrecompileScope } from './precompile-scope.js';
import type { BlockEnv } from '../../chain/contract.js';
import { PrecompileRevert, type RegisteredPrecompile } from './precompiles.js';
import type { WorldStateManager } from './state-manager.js';
import { addressOfBytes } from '../../sdk/address.js';

/** What a VM's precompiles need of the run they are part of: its state and its block. */
export interface PrecompileFrame {
  state: WorldStateManager;
  block: BlockEnv | undefined;
  /** The message that reached a precompile: set when the EVM announces it, read when the precompile runs right after. */
  message: Message | undefined;
}

const ERROR_ABI = [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }] as const;

/** A revert with `Error(reason)`, as Solidity's `require` gives, charging `gas`. */
function reverted(reason: string, gas: bigint): ExecResult {
  return {
    executionGasUsed: gas,
    returnValue: fromHex(encodeErrorResult({ abi: ERROR_ABI, errorName: 'Error', args: [reason] })),
    exceptionError: new EVMError(EVMError.errorMessages.REVERT),
  };
}

function outOfGas(gasLimit: bigint): ExecResult {
  return {
    executionGasUsed: gasLimit,
    returnValue: new Uint8Array(0),
    exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
  };
}

const svcOf = (address: EvmAddress): Address => addressOfBytes(address.bytes);

/**
 * Runs plugins' precompiles inside the EVM: tells each who called it (the EVM's precompile
 * interface passes only the input), gives it the transaction's state through a PrecompileScope,
 * reads what must come from disk and runs it again, and turns its refusals into reverts with a reason.
 */
export class PrecompileHost {
  readonly addresses: ReadonlySet<string>;

  constructor(readonly precompiles: readonly RegisteredPrecompile[]) {
    this.addresses = new Set(precompiles.map((p) => p.spec.address.slice(2)));
  }

  /** The EVM's custom precompiles for one VM, reading its run from `frame`. */
  customPrecompiles(frame: PrecompileFrame): CustomPrecompile[] {
    return this.precompiles.map((registered) => ({
      address: new EvmAddress(fromHex(registered.spec.address)),
      function: (input: PrecompileInput) => this.run(registered, input, frame),
    }));
  }

  /** Keeps `frame.message` on the message that is about to reach one of the precompiles. */
  watch(
    events: { on(event: 'beforeMessage', listener: (message: Message) => void): void },
    frame: PrecompileFrame,
  ): void {
    events.on('beforeMessage', (message) => {
      if (message.to === undefined) return;
      // Every call of a run comes here: most are to contracts, whose address is no run of zeros.
      const bytes = message.codeAddress.bytes;
      if (bytes[0] !== 0 || bytes[15] !== 0) return;
      if (this.addresses.has(toHex(bytes).slice(2))) frame.message = message;
    });
  }

  private async run(
    registered: RegisteredPrecompile,
    input: PrecompileInput,
    frame: PrecompileFrame,
  ): Promise<ExecResult> {
    const message = frame.message;
    frame.message = undefined;
    if (!message || !frame.block)
      throw new Error(`precompile ${registered.spec.name} ran outside a call the runner set up`);
    const { spec } = registered;
    const call = {
      caller: svcOf(message.caller),
      input: input.data,
      value: message.value,
      isStatic: message.isStatic,
      delegated: !message.to!.equals(message.codeAddress),
      gasLimit: input.gasLimit,
    };
    const fetched = new Map<string, Uint8Array | undefined>();
    for (;;) {
      const scope = new PrecompileScope(frame.state, fetched, frame.block, registered.owner);
      try {
        const outcome = spec.run({ ...call, ctx: scope }, registered.service());
        if (outcome.gas > input.gasLimit) return outOfGas(input.gasLimit);
        if (call.isStatic && scope.changes > 0)
          return reverted(
            `${spec.name}: this function changes state and was called in a static context (STATICCALL or view)`,
            outcome.gas,
          );
        scope.apply();
        return { executionGasUsed: outcome.gas, returnValue: outcome.output };
      } catch (error) {
        if (error instanceof MustRead) {
          fetched.set(error.key, await error.pending);
          continue;
        }
        if (error instanceof PrecompileRevert)
          return error.gas > input.gasLimit
            ? outOfGas(input.gasLimit)
            : reverted(`${spec.name}: ${error.message}`, error.gas);
        if (isTxFailure(error))
          return spec.revertGas > input.gasLimit
            ? outOfGas(input.gasLimit)
            : reverted(`${spec.name}: ${error.error}: ${error.message}`, spec.revertGas);
        throw error;
      }
    }
  }
}
