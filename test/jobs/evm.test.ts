import { describe, expect, it } from 'vitest';
import { Common, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import { EVM_HARDFORK, runEvm } from '../../jobs/evm.js';
import { DEFAULT_JOB_LIMITS, type JobSpec } from '../../jobs/spec.js';

const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/\s/g, ''), 'hex'));
const word = (n: bigint): Uint8Array => fromHex(n.toString(16).padStart(64, '0'));

/** Runtime bytecode: returns the sum 1 + 2 + … + n of the calldata word n, by a loop. */
const SUM_TO_N = fromHex('6000 35 6000 5b 81 15 6016 57 81 01 90 6001 90 03 90 6005 56 5b 6000 52 6020 6000 f3');
/** Runtime bytecode: returns twice the calldata word. */
const DOUBLE = fromHex('6000 35 6002 02 6000 52 6020 6000 f3');

const spec = (code: Uint8Array, input: Uint8Array, gasLimit = 1_000_000n): JobSpec => ({
  runtime: 'evm',
  code,
  input,
  args: [],
  gasLimit,
  timestamp: 1_700_000_000_000,
  height: 12,
  seed: new Uint8Array(32),
  limits: DEFAULT_JOB_LIMITS,
});

describe('an EVM job', () => {
  it('returns what the bytecode computes: the sum 1..100 is 5050', async () => {
    const outcome = await runEvm(spec(SUM_TO_N, word(100n)));
    expect(outcome.exit).toEqual({ kind: 'exit', code: 0 });
    expect(BigInt(`0x${Buffer.from(outcome.output).toString('hex')}`)).toBe(5050n);
  });

  it("uses the EVM's own gas accounting: doubling a word costs 29 gas, as bare runCode says", async () => {
    const outcome = await runEvm(spec(DOUBLE, word(21n)));
    expect(BigInt(`0x${Buffer.from(outcome.output).toString('hex')}`)).toBe(42n);
    const bare = await (await createEVM({ common: new Common({ chain: Mainnet, hardfork: EVM_HARDFORK }) })).runCode({
      code: DOUBLE,
      data: word(21n),
      gasLimit: 1_000_000n,
    });
    expect(outcome.gasUsed).toBe(bare.executionGasUsed);
    expect(outcome.gasUsed).toBe(29n);
  });

  it('ends out of gas with gasUsed equal to the limit, and a bad opcode as a trap', async () => {
    const outcome = await runEvm(spec(SUM_TO_N, word(1_000_000n), 10_000n));
    expect(outcome.exit).toEqual({ kind: 'out_of_gas' });
    expect(outcome.gasUsed).toBe(10_000n);
    expect((await runEvm(spec(fromHex('fe'), new Uint8Array(0)))).exit).toEqual({
      kind: 'trap',
      reason: 'invalid opcode',
    });
  });

  it('reads the assigning block as its context: NUMBER is the height', async () => {
    // NUMBER PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
    const outcome = await runEvm(spec(fromHex('43 6000 52 6020 6000 f3'), new Uint8Array(0)));
    expect(BigInt(`0x${Buffer.from(outcome.output).toString('hex')}`)).toBe(12n);
  });
});
