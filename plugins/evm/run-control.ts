import { Pacer } from '../../chain/pacer.js';
import { interpreterPrototype } from './vm-speedups.js';

/*
 * The EVM's interpreter runs a contract's opcodes one after another without ever letting the event
 * loop turn: a loop of 16 million gas held the node's only thread for a second or more, and RPC
 * answers, blocks and votes waited. Patched here: every few hundred opcodes the interpreter asks a
 * Pacer whether it has held the loop for a slice (2 ms) and, if so, lets waiting work in before it
 * goes on; and a run with a deadline (a call or an estimate) is stopped once past it.
 *
 * Runs are of two classes. The chain's (a block's transactions and callbacks, proposed or
 * checked) go first: while one is under way, a request's run (eth_call, an estimate, a trace)
 * waits at its next pause instead of sharing the thread, so any number of calls cannot slow a
 * block down — they share what the chain leaves. The time a run waits so is not counted against
 * its deadline: a node importing a backlog of blocks would otherwise fail every call it is asked.
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

/** Whose run it is: the chain's own work, or a request's (which gives way to the chain's). */
export type RunClass = 'chain' | 'request';

export interface RunControl {
  readonly runClass: RunClass;
  /** Wall-clock time the run may take (ms); undefined: no limit. */
  readonly budgetMs?: number | undefined;
}

interface ActiveRun {
  readonly runClass: RunClass;
  /** `at` moves later by the time the run waits for the chain: a budget measures the run, not the chain's work. */
  readonly deadline?: { at: number; readonly budgetMs: number };
}

/** Runs under way, by the EVM running them (a VM runs one run at a time). */
const active = new WeakMap<object, ActiveRun>();

/** The chain's runs under way, and what requests' runs wait on until there are none. */
let chainRuns = 0;
let chainIdle: { promise: Promise<void>; resolve: () => void } | undefined;

function waitForChain(): Promise<void> {
  if (!chainIdle) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    chainIdle = { promise, resolve };
  }
  return chainIdle.promise;
}

/** Starts a run on `evm` under `control`; call what it returns when the run ends, however it ends. */
export function beginRun(evm: object, control: RunControl): () => void {
  const { runClass, budgetMs } = control;
  active.set(evm, {
    runClass,
    ...(budgetMs === undefined ? {} : { deadline: { at: performance.now() + budgetMs, budgetMs } }),
  });
  if (runClass === 'chain') chainRuns++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    active.delete(evm);
    if (runClass === 'chain' && --chainRuns === 0 && chainIdle) {
      chainIdle.resolve();
      chainIdle = undefined;
    }
  };
}

function checkDeadline(run: ActiveRun | undefined): void {
  if (run?.deadline && performance.now() > run.deadline.at) throw new EvmDeadlineError(run.deadline.budgetMs);
}

/** `wait`, with the time it takes added to `run`'s deadline. */
function waitedFor(run: ActiveRun, wait: Promise<void>): Promise<void> {
  const parked = performance.now();
  return wait.then(() => {
    if (run.deadline) run.deadline.at += performance.now() - parked;
  });
}

interface InterpreterLike {
  runStep(opcode?: unknown): Promise<void>;
  _evm: object;
}

let patched: Promise<string | undefined> | undefined;

/** Makes the interpreter pause for waiting work, give way to the chain's runs and honour deadlines; undefined when done, else why it was not. */
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
      const run = active.get(this._evm);
      checkDeadline(run);
      const pause = run?.runClass === 'request' && chainRuns > 0 ? waitedFor(run, waitForChain()) : pacer.step();
      if (!pause) return runStep.call(this, opcode);
      return pause.then(() => {
        checkDeadline(run);
        return runStep.call(this, opcode);
      });
    };
    return undefined;
  })();
  return patched;
}
