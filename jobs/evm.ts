import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM, type EVMRunCodeOpts } from '@ethereumjs/evm';
import { createZeroAddress } from '@ethereumjs/util';
import type { JobOutcome } from './outcome.js';
import type { JobSpec } from './spec.js';

/** The one hardfork EVM jobs run at: a network's jobs must all see the same opcodes and gas costs. */
export const EVM_HARDFORK = Hardfork.Prague;

/**
 * Runs EVM bytecode as a job: the code is run as it is (runtime bytecode, not deployed), calldata =
 * the job's input, output = the return data. Each job gets a fresh, empty state (its own storage,
 * gone after the run). Block context, fixed and the same on every node: NUMBER = the assigning
 * block's height, TIMESTAMP = its time in seconds, PREVRANDAO = the job's seed, COINBASE = 0,
 * GASLIMIT = the job's gas limit, BASEFEE = 0. Gas is the EVM's own accounting.
 * A REVERT is exit code 1 (the output holds the revert data); any other exceptional halt is a trap.
 */
export async function runEvm(spec: JobSpec): Promise<JobOutcome> {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: EVM_HARDFORK }) });
  const block: NonNullable<EVMRunCodeOpts['block']> = {
    header: {
      number: BigInt(spec.height),
      coinbase: createZeroAddress(),
      timestamp: BigInt(Math.floor(spec.timestamp / 1000)),
      difficulty: 0n,
      prevRandao: spec.seed,
      gasLimit: spec.gasLimit,
      baseFeePerGas: 0n,
      getBlobGasPrice: () => 1n,
    },
  };
  const result = await evm.runCode({ code: spec.code, data: spec.input, gasLimit: spec.gasLimit, block });
  const output =
    result.returnValue.length > spec.limits.maxOutputBytes ? result.returnValue.subarray(0, 0) : result.returnValue;
  const error = result.exceptionError?.error;
  const log = new Uint8Array(0);
  if (error === undefined) return { exit: { kind: 'exit', code: 0 }, gasUsed: result.executionGasUsed, output, log };
  if (error === 'out of gas')
    return { exit: { kind: 'out_of_gas' }, gasUsed: spec.gasLimit, output: new Uint8Array(0), log };
  if (error === 'revert') return { exit: { kind: 'exit', code: 1 }, gasUsed: result.executionGasUsed, output, log };
  return { exit: { kind: 'trap', reason: error }, gasUsed: result.executionGasUsed, output: new Uint8Array(0), log };
}
