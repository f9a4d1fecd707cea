import type { Common, ParamsDict } from '@ethereumjs/common';
import { sharedCommon } from '../../chain/ethereum-envelope.js';

/*
 * Two costs of @ethereumjs/evm 10 that a chain at one hardfork need not pay on every transaction,
 * removed without changing what it computes (the contract tests, and the trace test's opcode-by-opcode
 * comparison with Anvil, run with them):
 *
 * - Common.isActivatedEIP searches an array of some hundred EIPs, and the interpreter asks it for
 *   every opcode it runs (8% of a token transfer); a Set built from the same array answers the same.
 * - The interpreter analyses a contract's code (jump destinations, push values, the opcode of each
 *   position) every time the code runs (15% of a token transfer). The analysis is a function of the
 *   code and the EVM's opcode table only, so it is kept per code object and table: the world state
 *   hands out one object per stored code, so a contract's code is analysed once while it is unchanged.
 *
 * The interpreter is not exported by the package: its module is loaded by the URL the package's own
 * entry uses, which is the same module instance the EVM runs. If a later version renames what is
 * patched, nothing is patched and the node says so at its first EVM run: the EVM then runs unchanged, slower.
 */

type OpcodeMap = object;
interface Analysis {
  readonly jumps: Uint8Array;
}
interface InterpreterLike {
  _getValidJumpDestinations(code: Uint8Array): Analysis;
  _evm: { _opcodeMap: OpcodeMap };
}

/** Makes `isActivatedEIP` a Set lookup over the Common's own list (rebuilt when that list is replaced). */
export function speedUpCommon(common: Common): void {
  const internal = common as unknown as { _activatedEIPsCache: number[] };
  let source: number[] | undefined;
  let active = new Set<number>();
  Object.assign(common, {
    isActivatedEIP(eip: number): boolean {
      const list = internal._activatedEIPsCache;
      if (list !== source) {
        source = list;
        active = new Set(list);
      }
      return active.has(eip);
    },
  });
}

/**
 * A Common for the EVM's block views, shared by all of them: a block header copies the Common it is
 * given and merges the block parameters into the copy, rebuilding its parameter cache (about 0.3 ms,
 * once per new head). This one has them merged already and is its own copy; the views never change
 * their hardfork (`setHardfork` is not asked for), so sharing it is safe.
 */
export function sharedHeaderCommon(common: Common, paramsBlock: ParamsDict): Common {
  const shared = common.copy();
  speedUpCommon(shared);
  return sharedCommon(shared, paramsBlock);
}

/**
 * The interpreter's prototype, loaded by the URL the package's own entry uses (the module instance
 * the EVM runs; the package does not export it); undefined when it is not there.
 */
export async function interpreterPrototype<T>(): Promise<T | undefined> {
  const module = (await import(new URL('./interpreter.js', import.meta.resolve('@ethereumjs/evm')).href)) as {
    Interpreter?: { prototype: T };
  };
  return module.Interpreter?.prototype;
}

let interpreterPatched: Promise<string | undefined> | undefined;

/** Keeps the interpreter's code analysis per code object; undefined when done, else why it was not. */
export function speedUpInterpreter(): Promise<string | undefined> {
  interpreterPatched ??= (async () => {
    const proto = await interpreterPrototype<InterpreterLike>();
    const analyse = proto?._getValidJumpDestinations;
    if (!proto || typeof analyse !== 'function')
      return 'the installed @ethereumjs/evm has no Interpreter._getValidJumpDestinations';
    const byTable = new WeakMap<OpcodeMap, WeakMap<Uint8Array, Analysis>>();
    proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): Analysis {
      const table = this._evm._opcodeMap;
      let byCode = byTable.get(table);
      if (!byCode) byTable.set(table, (byCode = new WeakMap()));
      let analysis = byCode.get(code);
      if (!analysis) byCode.set(code, (analysis = analyse.call(this, code)));
      return analysis;
    };
    return undefined;
  })();
  return interpreterPatched;
}
