import { DEPTH_EXPORT, GAS_EXPORT, type InstrumentedModule } from './instrument.js';
import { DeterministicWasi, OutputLimitError, ProcExit, type WasiJob } from './wasi.js';
import { WASI_MODULE } from './wasi-names.js';
import type { JobOutcome } from '../outcome.js';

/** The host ran the gas below zero inside a WASI call. */
class HostOutOfGas extends Error {}

/**
 * Runs an instrumented WASI command module once: `_start` with the gas limit in the module's gas
 * global. Every way it can end is a deterministic outcome: exit code, out of gas (gasUsed = limit),
 * or a trap named by its kind.
 */
export function runWasm(
  module: WebAssembly.Module,
  instrumented: Pick<InstrumentedModule, 'imports'>,
  job: WasiJob & { readonly gasLimit: bigint; readonly maxCallDepth: number },
): JobOutcome {
  let gas: WebAssembly.Global | undefined;
  const pay = (amount: bigint): void => {
    const left = (gas!.value as bigint) - amount;
    gas!.value = left;
    if (left < 0n) throw new HostOutOfGas();
  };
  const wasi = new DeterministicWasi(job, pay);
  const gasUsed = (): bigint => {
    const left = gas ? (gas.value as bigint) : job.gasLimit;
    return left < 0n ? job.gasLimit : job.gasLimit - left;
  };
  const outcome = (exit: JobOutcome['exit']): JobOutcome => ({
    exit,
    gasUsed: exit.kind === 'out_of_gas' ? job.gasLimit : gasUsed(),
    output: wasi.output,
    log: wasi.log,
  });
  try {
    const instance = new WebAssembly.Instance(module, { [WASI_MODULE]: wasi.imports(instrumented.imports) });
    const exports = instance.exports as Record<string, unknown>;
    gas = exports[GAS_EXPORT] as WebAssembly.Global;
    gas.value = job.gasLimit;
    wasi.bind(exports.memory as WebAssembly.Memory);
    try {
      (exports._start as () => void)();
      return outcome({ kind: 'exit', code: 0 });
    } catch (error) {
      if (error instanceof ProcExit) return outcome({ kind: 'exit', code: error.code });
      if (error instanceof HostOutOfGas || (gas.value as bigint) < 0n) return outcome({ kind: 'out_of_gas' });
      if (((exports[DEPTH_EXPORT] as WebAssembly.Global).value as number) > job.maxCallDepth)
        return outcome({ kind: 'trap', reason: 'call depth limit' });
      return outcome({ kind: 'trap', reason: trapKind(error) });
    }
  } catch (error) {
    // Instantiation itself: a data segment or element outside its memory or table, or a start function that traps.
    if (error instanceof HostOutOfGas || (gas && (gas.value as bigint) < 0n)) return outcome({ kind: 'out_of_gas' });
    return outcome({ kind: 'trap', reason: trapKind(error) });
  }
}

/**
 * The kind of a trap, in fixed words: engines word their messages differently between versions, and
 * the outcome must be the same on every node.
 */
function trapKind(error: unknown): string {
  if (error instanceof OutputLimitError) return 'output limit';
  if (error instanceof RangeError && /call stack/i.test(error.message)) return 'stack overflow';
  const message = error instanceof Error ? error.message : String(error);
  const kinds: [RegExp, string][] = [
    [/unreachable/i, 'unreachable'],
    [/memory access out of bounds|out of bounds memory/i, 'memory out of bounds'],
    [/divide by zero|division by zero/i, 'integer divide by zero'],
    [/integer overflow|invalid conversion|float unrepresentable/i, 'integer overflow'],
    [/table index|out of bounds table|element segment/i, 'table out of bounds'],
    [/signature mismatch|null function|indirect call/i, 'indirect call mismatch'],
    [/data segment/i, 'data segment out of bounds'],
  ];
  return kinds.find(([pattern]) => pattern.test(message))?.[1] ?? 'trap';
}
