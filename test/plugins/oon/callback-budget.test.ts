import { describe, expect, it } from 'vitest';
import type { BlockContext } from '../../../chain/contract.js';
import { appendIndexed, indexCount, readIndexed } from '../../../chain/state/indexed.js';
import { oonPrecompile } from '../../../plugins/oon/precompile.js';
import { CALLBACKS_DUE_INDEX, writeJob, type JobRecord } from '../../../plugins/oon/jobs/state.js';
import { JOB_PARAMS } from '../../../plugins/oon/jobs/params.js';
import type { Precompile } from '../../../plugins/evm/precompiles.js';

/** Consensus state as a map: what the callbacks step reads and writes of it. */
function stateContext(): BlockContext & { keys: Map<string, Uint8Array> } {
  const keys = new Map<string, Uint8Array>();
  return {
    keys,
    readState: (key: string) => keys.get(key),
    writeState: (key: string, value: Uint8Array | undefined) =>
      value === undefined ? keys.delete(key) : keys.set(key, value),
  } as unknown as BlockContext & { keys: Map<string, Uint8Array> };
}

const id = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

function settledJob(n: number, callbackGas: bigint): JobRecord {
  return {
    jobId: id(n),
    requester: `svc1${'ab'.repeat(20)}`,
    runtime: 'wasm',
    codeHash: id(0),
    codeSize: 1,
    input: new Uint8Array(0),
    args: [],
    gasLimit: '1000',
    gasPrice: '1',
    replicas: 1,
    escrow: callbackGas.toString(),
    status: 'expired',
    submittedAt: 1,
    submittedTime: 1,
    attempts: 0,
    assignments: [],
    excluded: [],
    callback: { selector: '0x12345678', gasLimit: callbackGas.toString(), reserve: callbackGas.toString() },
  };
}

describe('contract job callbacks', () => {
  it('are made within the block callback gas, oldest first; the rest wait for the next block in their order', () => {
    const precompile = oonPrecompile((spec) => spec as unknown as Precompile);
    const ctx = stateContext();
    const read = (key: string) => ctx.readState(key);
    const write = (key: string, value: Uint8Array | undefined) => ctx.writeState(key, value);
    const each = JOB_PARAMS.maxCallbackGas;
    const fit = Number(JOB_PARAMS.callbackGasPerBlock / each);
    for (let n = 1; n <= fit + 5; n++) {
      writeJob(write, settledJob(n, each));
      appendIndexed(read, write, CALLBACKS_DUE_INDEX, id(n));
    }
    const first = precompile.callbacks!(ctx, undefined);
    expect(first.map((c) => c.gasLimit)).toEqual(Array(fit).fill(each));
    expect(indexCount(read, CALLBACKS_DUE_INDEX)).toBe(5);
    expect(readIndexed(read, CALLBACKS_DUE_INDEX, 10).ids.reverse()).toEqual([1, 2, 3, 4, 5].map((k) => id(fit + k)));
    const second = precompile.callbacks!(ctx, undefined);
    expect(second).toHaveLength(5);
    expect(indexCount(read, CALLBACKS_DUE_INDEX)).toBe(0);
  });
});
