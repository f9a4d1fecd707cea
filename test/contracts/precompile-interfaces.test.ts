import type { Abi } from 'viem';
import { describe, expect, it } from 'vitest';
import { OGT_ABI } from '../../plugins/evm/ogt-precompile.js';
import { OMP_ABI } from '../../plugins/omp/precompile.js';
import { OON_ABI } from '../../plugins/oon/precompile.js';
import { contracts } from '../helpers/contracts.js';

interface Param {
  readonly type: string;
  readonly name?: string;
  readonly components?: readonly Param[];
}

/** A parameter as the ABI encodes it: type and name, a struct's fields in order (solc's `internalType` left out). */
const param = (p: Param): unknown => ({
  type: p.type,
  name: p.name ?? '',
  ...(p.components ? { components: p.components.map(param) } : {}),
});

/** An ABI's functions by name: mutability, inputs and outputs. */
function functions(abi: readonly Record<string, unknown>[] | Abi): Record<string, unknown> {
  return Object.fromEntries(
    (abi as readonly Record<string, unknown>[])
      .filter((item) => item.type === 'function')
      .map((item) => [
        item.name as string,
        {
          stateMutability: item.stateMutability,
          inputs: (item.inputs as Param[]).map(param),
          outputs: (item.outputs as Param[]).map(param),
        },
      ]),
  );
}

describe('the Solidity interfaces shipped in contracts/', () => {
  it.each([
    ['IOON', OON_ABI],
    ['IOMP', OMP_ABI],
    ['IOGT', OGT_ABI],
  ] as const)('%s compiles to the ABI its precompile decodes and documents', (name, abi) => {
    const compiled = contracts()[name];
    expect(compiled, `contracts/${name}.sol compiled`).toBeDefined();
    const fromSolidity = functions(compiled!.abi);
    expect(Object.keys(fromSolidity).length).toBeGreaterThan(0);
    expect(fromSolidity).toEqual(functions(abi));
  });
});
