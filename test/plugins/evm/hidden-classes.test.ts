import { setFlagsFromString } from 'node:v8';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { EVM, createEVM } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';

/*
 * V8 before 12 (Node 20) gives an object literal that starts with a spread and goes on with more
 * properties a new hidden class each time it is built: every EVM message and result did, which made
 * every property read on them megamorphic and a balanceOf call ~2.5 times slower. The installed
 * @ethereumjs/evm is patched (patches/) to build them with Object.assign; this is what the patch keeps.
 * On later Node lines the same objects share their class with or without it.
 */
setFlagsFromString('--allow-natives-syntax');
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

// PUSH1 42, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: a call that answers 42.
const ANSWER = Uint8Array.from([0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3]);
// Init code that deploys ANSWER: CODECOPY it from after itself, RETURN it.
const DEPLOY = Uint8Array.from([
  0x60,
  ANSWER.length,
  0x60,
  0x0c,
  0x60,
  0x00,
  0x39,
  0x60,
  ANSWER.length,
  0x60,
  0x00,
  0xf3,
  ...ANSWER,
]);

const RUNS = 40;

/** The interpreter's entry, which the package keeps protected: what each run passes to it is watched here. */
type RunInterpreter = (this: EVM, message: object, options?: object) => Promise<unknown>;

/** An EVM whose runs hand what they pass to the interpreter to `seen`. */
async function watchedEvm(seen: object[]): Promise<EVM> {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Prague }) });
  const runInterpreter = (EVM.prototype as unknown as { runInterpreter: RunInterpreter }).runInterpreter;
  Object.assign(evm, {
    runInterpreter(this: EVM, message: object, options?: object) {
      seen.push(message);
      return runInterpreter.call(this, message, options);
    },
  });
  return evm;
}

describe('the EVM engine on this Node', () => {
  it('builds each run’s message and result with the classes of the run before (a call and a create)', async () => {
    const messages: object[] = [];
    const evm = await watchedEvm(messages);
    const contract = new Address(new Uint8Array(20).fill(0x11));
    await evm.stateManager.putCode(contract, ANSWER);
    // V8 builds the first few the slow way, which shares classes; past its inline caches' warm-up it did not.
    const calls = [];
    for (let i = 0; i < RUNS; i++) calls.push(await evm.runCall({ to: contract, gasLimit: 100_000n }));
    expect(calls.at(-1)!.execResult.returnValue[31]).toBe(42);
    const creates = [];
    for (let i = 0; i < RUNS; i++) creates.push(await evm.runCall({ data: DEPLOY, gasLimit: 200_000n }));
    expect(creates.at(-1)!.createdAddress).toBeDefined();
    expect(messages).toHaveLength(2 * RUNS);

    for (const [runs, last] of [
      [calls, RUNS - 1],
      [creates, 2 * RUNS - 1],
    ] as const) {
      const [before, after] = runs.slice(-2);
      expect(sameHiddenClass(messages[last - 1]!, messages[last]!)).toBe(true);
      expect(sameHiddenClass(before!.execResult, after!.execResult)).toBe(true);
      expect(sameHiddenClass(before!.execResult.runState!, after!.execResult.runState!)).toBe(true);
    }
  });
});
