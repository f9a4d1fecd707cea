import type { EVMInterface, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { toHex } from '../../../sdk/bytes.js';
import type { EvmOutcome } from '../runner.js';
import { revertReason } from '../revert-reason.js';
import { deadline, type TraceLimits, type Tracer, type TracedRun } from './tracer.js';

/** geth's `callTracer` options (`tracerConfig`). */
export interface CallTracerOptions {
  readonly onlyTopCall?: boolean;
  readonly withLog?: boolean;
}

/** One call frame as geth's callTracer shows it. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  logs?: { address: string; topics: string[]; data: string; position: string }[];
  calls?: CallFrame[];
}

const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);
const LOG0 = 0xa0;
const LOG4 = 0xa4;
const qty = (value: bigint): string => `0x${value.toString(16)}`;

/** geth's words for how a frame failed. */
function errorOf(error: string): string {
  if (error === 'revert') return 'execution reverted';
  if (error === 'out of gas' || error === 'code store out of gas') return 'out of gas';
  return error;
}

/**
 * geth's `callTracer`: the tree of calls a run made (CALL, STATICCALL, DELEGATECALL, CALLCODE,
 * CREATE, CREATE2), each with the gas it was given and used, its input and output, how it failed,
 * and with `withLog` the logs it emitted (dropped with a frame that reverted, as they were).
 */
export class CallTracer implements Tracer {
  private readonly stack: CallFrame[] = [];
  private top: CallFrame | undefined;
  /** The last call-family opcode run at each depth: what the next message at depth + 1 is. */
  private readonly opAtDepth: string[] = [];

  constructor(
    private readonly options: CallTracerOptions,
    private readonly limits: TraceLimits,
  ) {}

  attach(evm: EVMInterface): () => void {
    const overdue = deadline(this.limits);
    const onStep = (step: InterpreterStep): void => {
      overdue();
      if (CALL_OPS.has(step.opcode.name)) this.opAtDepth[step.depth] = step.opcode.name;
      if (this.options.withLog && step.opcode.code >= LOG0 && step.opcode.code <= LOG4) this.log(step);
    };
    const before = (message: Message): void => {
      const type =
        message.depth === 0 ? (message.to ? 'CALL' : 'CREATE') : (this.opAtDepth[message.depth - 1] ?? 'CALL');
      // A delegate call or call-code runs the target's code in the caller's context: the EVM's message
      // is addressed to that context, geth names the contract that called and the code it called.
      const borrowed = type === 'DELEGATECALL' || type === 'CALLCODE';
      const frame: CallFrame = {
        type,
        from: (borrowed ? message.to! : message.caller).toString(),
        ...(message.to ? { to: (borrowed ? message.codeAddress : message.to).toString() } : {}),
        ...(type === 'STATICCALL' || type === 'DELEGATECALL' ? {} : { value: qty(message.value) }),
        gas: qty(message.gasLimit),
        gasUsed: '0x0',
        input: toHex(message.data),
      };
      const parent = this.stack.at(-1);
      if (parent && !this.options.onlyTopCall) (parent.calls ??= []).push(frame);
      if (!parent) this.top = frame;
      this.stack.push(frame);
    };
    const after = (result: EVMResult): void => {
      const frame = this.stack.pop();
      if (!frame) return;
      const exec = result.execResult;
      frame.gasUsed = qty(exec.executionGasUsed);
      if (result.createdAddress) frame.to = result.createdAddress.toString();
      if (exec.returnValue.length > 0) frame.output = toHex(exec.returnValue);
      const error = exec.exceptionError?.error;
      if (error !== undefined) {
        frame.error = errorOf(error);
        if (error === 'revert' && exec.returnValue.length > 0) {
          const reason = revertReason(exec.returnValue).replace(/^execution reverted: ?/, '');
          if (reason && !reason.startsWith('custom error') && !reason.startsWith('panic')) frame.revertReason = reason;
        }
        if (error !== 'revert') delete frame.output;
        dropLogs(frame);
      }
    };
    evm.events!.on('step', onStep);
    evm.events!.on('beforeMessage', before);
    evm.events!.on('afterMessage', after);
    return () => {
      evm.events!.off('step', onStep);
      evm.events!.off('beforeMessage', before);
      evm.events!.off('afterMessage', after);
    };
  }

  private log(step: InterpreterStep): void {
    const frame = this.stack.at(-1);
    if (!frame || (this.options.onlyTopCall && frame !== this.top)) return;
    const stack = step.stack;
    const count = step.opcode.code - LOG0;
    const offset = Number(stack[stack.length - 1]!);
    const size = Number(stack[stack.length - 2]!);
    const topics = Array.from(
      { length: count },
      (_, i) => `0x${stack[stack.length - 3 - i]!.toString(16).padStart(64, '0')}`,
    );
    // Memory past its size reads as zeros (the LOG op expands it first).
    const data = new Uint8Array(size);
    data.set(step.memory.subarray(offset, offset + size));
    (frame.logs ??= []).push({
      address: step.address.toString(),
      topics,
      data: toHex(data),
      position: qty(BigInt(frame.calls?.length ?? 0)),
    });
  }

  /** The top frame with the transaction's own gas (limit and used, intrinsic gas and refunds included). */
  result(outcome: EvmOutcome, run: TracedRun): CallFrame {
    const top = this.top ?? {
      type: run.to ? 'CALL' : 'CREATE',
      from: run.from,
      gas: '0x0',
      gasUsed: '0x0',
      input: toHex(run.input),
      value: qty(run.value),
    };
    top.gas = qty(run.gasLimit);
    top.gasUsed = qty(BigInt(outcome.gasUsed));
    return top;
  }
}

function dropLogs(frame: CallFrame): void {
  delete frame.logs;
  for (const call of frame.calls ?? []) dropLogs(call);
}
