import type { EVMInterface, InterpreterStep } from '@ethereumjs/evm';
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { toHex } from '../../../sdk/bytes.js';
import type { EvmOutcome } from '../runner.js';
import { deadline, TraceAbortedError, type TraceLimits, type Tracer } from './tracer.js';

/** geth's struct logger options (`debug_traceTransaction` without a `tracer`). */
export interface StructLoggerOptions {
  readonly disableStack?: boolean;
  readonly disableStorage?: boolean;
  readonly enableMemory?: boolean;
  readonly enableReturnData?: boolean;
}

/** One step as geth's struct logger shows it. */
export interface StructLog {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  stack?: string[];
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
  returnData?: string;
}

const SLOAD = 0x54;
const SSTORE = 0x55;
const word = (value: bigint): string => toHex(setLengthLeft(bigIntToBytes(value), 32)).slice(2);
const bare = (bytes: Uint8Array): string => toHex(bytes).slice(2);

/**
 * geth's default tracer: every opcode the EVM runs with the gas left before it, what it cost, the
 * call depth (1 at the top), the stack (hex quantities), memory in 32-byte words (with
 * `enableMemory`) and the storage the contract touched so far (on SLOAD and SSTORE).
 */
export class StructLogger implements Tracer {
  private readonly logs: StructLog[] = [];
  /** What each contract's slots were seen to hold, as geth accumulates them (by address). */
  private readonly storage = new Map<string, Record<string, string>>();
  private returnData: Uint8Array = new Uint8Array(0);
  private failure: unknown;

  constructor(
    private readonly options: StructLoggerOptions,
    private readonly limits: TraceLimits,
  ) {}

  attach(evm: EVMInterface): () => void {
    const overdue = deadline(this.limits);
    // Two arguments: the EVM awaits the listener (an SLOAD's value is read from the state). What
    // stops the run is thrown synchronously, which rejects the EVM's await; a failed read is kept
    // and thrown with the result.
    const onStep = (step: InterpreterStep, resolve?: (result?: unknown) => void): void => {
      overdue();
      if (this.logs.length >= this.limits.maxSteps)
        throw new TraceAbortedError(
          `the trace has more than ${this.limits.maxSteps} steps: trace with {"tracer":"callTracer"}, or trace a smaller call`,
        );
      this.record(step).then(
        () => resolve?.(),
        (error: unknown) => {
          this.failure ??= error;
          resolve?.();
        },
      );
    };
    const afterMessage = (result: { execResult: { returnValue: Uint8Array } }) => {
      this.returnData = result.execResult.returnValue;
    };
    evm.events!.on('step', onStep);
    evm.events!.on('afterMessage', afterMessage);
    return () => {
      evm.events!.off('step', onStep);
      evm.events!.off('afterMessage', afterMessage);
    };
  }

  private async record(step: InterpreterStep): Promise<void> {
    const log: StructLog = {
      pc: step.pc,
      op: step.opcode.name,
      gas: Number(step.gasLeft),
      gasCost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
      depth: step.depth + 1,
    };
    this.logs.push(log);
    if (!this.options.disableStack) log.stack = step.stack.map((item) => `0x${item.toString(16)}`);
    if (this.options.enableMemory) {
      const memory: string[] = [];
      for (let at = 0; at < step.memory.length; at += 32) memory.push(bare(step.memory.subarray(at, at + 32)));
      log.memory = memory;
    }
    if (this.options.enableReturnData && this.returnData.length > 0) log.returnData = toHex(this.returnData);
    if (step.gasRefund > 0n) log.refund = Number(step.gasRefund);
    const code = step.opcode.code;
    if (
      !this.options.disableStorage &&
      (code === SLOAD || code === SSTORE) &&
      step.stack.length >= (code === SLOAD ? 1 : 2)
    ) {
      const address = step.address.toString();
      const seen = this.storage.get(address) ?? {};
      this.storage.set(address, seen);
      const slot = step.stack[step.stack.length - 1]!;
      if (code === SSTORE) seen[word(slot)] = word(step.stack[step.stack.length - 2]!);
      else
        seen[word(slot)] = bare(
          setLengthLeft(await step.stateManager.getStorage(step.address, setLengthLeft(bigIntToBytes(slot), 32)), 32),
        );
      log.storage = { ...seen };
    }
  }

  result(outcome: EvmOutcome): { gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] } {
    if (this.failure !== undefined) throw this.failure;
    return {
      gas: outcome.gasUsed,
      failed: outcome.failure !== undefined,
      returnValue: toHex(outcome.result.execResult.returnValue),
      structLogs: this.logs,
    };
  }
}
