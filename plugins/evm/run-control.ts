import { Pacer } from '../../chain/pacer.js';
import { interpreterPrototype } from './vm-speedups.js';

/*
 * The EVM's interpreter runs a contract's opcodes one after another without ever letting the event
 * loop turn: a loop of 16 million gas held the node's only thread for a second or more, and RPC
 * answers, blocks and votes waited. Patched here: every few hundred opcodes the interpreter asks a
 * Pacer whether it has held the loop for a slice (2 ms) and, if so, lets waiting work in before it
 * goes on; and a run with a deadline (a call or an estimate) is stopped once past it.
 *
 * Pausing changes nothing a run computes: its state is its VM's own (the runner gives each run a VM
 * of its own), and a block's transactions already pause between each other the same way.
 */

/** Opcodes between two readings of the clock: a reading costs about what a cheap opcode does. */
const STEPS_PER_CHECK = 256;

/** A run stopped by its deadline: not an EVM outcome (no gas is charged), the request's error. */
export class EvmDeadlineError extends Error {
  override name = 'EvmDeadlineError';
  constructor(readonly budgetMs: number) {
    super(`execution aborted (timeout = ${Math.round(budgetMs)} ms)`);
  }
}

interface Deadline {
  readonly at: number;
  readonly budgetMs: number;
}

/** Runs under way with a deadline, by the EVM running them (a VM runs one run at a time). */
const deadlines = new WeakMap<object, Deadline>();

/** Stops what `evm` runs after `budgetMs` from now (undefined: no deadline). */
export function setDeadline(evm: object, budgetMs: number | undefined): void {
  if (budgetMs === undefined) deadlines.delete(evm);
  else deadlines.set(evm, { at: performance.now() + budgetMs, budgetMs });
}

function checkDeadline(evm: object): void {
  const deadline = deadlines.get(evm);
  if (deadline && performance.now() > deadline.at) throw new EvmDeadlineError(deadline.budgetMs);
}

interface InterpreterLike {
  runStep(opcode?: unknown): Promise<void>;
  _evm: object;
}

let patched: Promise<string | undefined> | undefined;

/** Makes the interpreter pause for waiting work and honour deadlines; undefined when done, else why it was not. */
export function paceInterpreter(): Promise<string | undefined> {
  patched ??= (async () => {
    const proto = await interpreterPrototype<InterpreterLike>();
    const runStep = proto?.runStep;
    if (!proto || typeof runStep !== 'function') return 'the installed @ethereumjs/evm has no Interpreter.runStep';
    // One pacer for all runs: what matters is how long EVM work of any kind has held the loop.
    const pacer = new Pacer();
    let steps = 0;
    proto.runStep = function (this: InterpreterLike, opcode?: unknown): Promise<void> {
      if (++steps < STEPS_PER_CHECK) return runStep.call(this, opcode);
      steps = 0;
      checkDeadline(this._evm);
      const pause = pacer.step();
      if (!pause) return runStep.call(this, opcode);
      return pause.then(() => {
        checkDeadline(this._evm);
        return runStep.call(this, opcode);
      });
    };
    return undefined;
  })();
  return patched;
}
