import type { createBlock, paramsBlock } from '@ethereumjs/block';
import type { getActivePrecompiles } from '@ethereumjs/evm';
import type { createVM, runTx } from '@ethereumjs/vm';
import { paceInterpreter } from './run-control.js';
import { speedUpInterpreter } from './vm-speedups.js';

/**
 * What the runner takes of @ethereumjs/vm, /evm and /block, with the interpreter patched (the
 * code-analysis cache, the pacing of long runs). Loaded at a node's first EVM run, not at its start:
 * loading them is ~0.2 s of CPU, and most nodes start, serve and stop without running a contract.
 */
export interface EvmEngine {
  readonly createVM: typeof createVM;
  readonly runTx: typeof runTx;
  readonly createBlock: typeof createBlock;
  readonly paramsBlock: typeof paramsBlock;
  readonly getActivePrecompiles: typeof getActivePrecompiles;
  /** Why the interpreter analyses code on every call (slower, same results); undefined when patched. */
  readonly unpatched: string | undefined;
  /** Why runs cannot pause (a long one holds the node, calls have no time budget); undefined when paced. */
  readonly unpaced: string | undefined;
}

let loading: Promise<EvmEngine> | undefined;

/** The engine, loaded once per process (every runner shares the modules and their patches). */
export function loadEvmEngine(): Promise<EvmEngine> {
  loading ??= (async () => {
    const [vm, block, evm, unpatched, unpaced] = await Promise.all([
      import('@ethereumjs/vm'),
      import('@ethereumjs/block'),
      import('@ethereumjs/evm'),
      speedUpInterpreter(),
      paceInterpreter(),
    ]);
    return {
      createVM: vm.createVM,
      runTx: vm.runTx,
      createBlock: block.createBlock,
      paramsBlock: block.paramsBlock,
      getActivePrecompiles: evm.getActivePrecompiles,
      unpatched,
      unpaced,
    };
  })();
  return loading;
}
