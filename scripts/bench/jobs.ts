// `node dist/scripts/bench/jobs.js`: the job runtimes against their bare ceilings, in the same run (one JSON line) —
// metered WASM (instrumented, under the deterministic WASI) against the same module in bare
// WebAssembly, and an EVM job against a bare, reused @ethereumjs/evm `runCode` on the same bytecode.
import { performance } from 'node:perf_hooks';
import { Common, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import wabtFactory from 'wabt';
import { EVM_HARDFORK, runEvm } from '../../jobs/evm.js';
import { executeJob } from '../../jobs/execute.js';
import { DEFAULT_JOB_LIMITS, type JobSpec } from '../../jobs/spec.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** Compute-bound: 20 million rounds of a multiply-rotate mix through a call, with a store each round. */
const COMPUTE_WAT = `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $mix (param $x i64) (result i64)
    (i64.xor (i64.rotl (i64.mul (local.get $x) (i64.const 0x9E3779B97F4A7C15)) (i64.const 31)) (local.get $x)))
  (func (export "_start")
    (local $i i32) (local $acc i64)
    (local.set $acc (i64.const 1))
    (loop $next
      (local.set $acc (call $mix (i64.add (local.get $acc) (i64.extend_i32_u (local.get $i)))))
      (i64.store (i32.and (i32.mul (local.get $i) (i32.const 8)) (i32.const 0xfff8)) (local.get $acc))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $i) (i32.const 20000000))))
    (i64.store (i32.const 64) (local.get $acc))
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 8))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 16)))))`;

/** Runtime bytecode: the sum 1 + … + n of the calldata word n, by a loop. */
const SUM_TO_N = Uint8Array.from(Buffer.from('60003560005b811560165781019060019003906005565b60005260206000f3', 'hex'));

const wabt = await wabtFactory();
const parsed = wabt.parseWat('compute.wat', COMPUTE_WAT, {});
const wasm = Uint8Array.from(parsed.toBinary({}).buffer);
parsed.destroy();

function bareWasm(): bigint {
  let memory: { buffer: ArrayBuffer } | undefined;
  let result = 0n;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(wasm), {
    wasi_snapshot_preview1: {
      fd_write: () => {
        result = new DataView(memory!.buffer).getBigUint64(64, true);
        return 0;
      },
    },
  });
  memory = instance.exports.memory as WebAssembly.Memory;
  (instance.exports._start as () => void)();
  return result;
}

const spec = (runtime: 'wasm' | 'evm', code: Uint8Array, input: Uint8Array): JobSpec => ({
  runtime,
  code,
  input,
  args: ['job'],
  gasLimit: 1n << 40n,
  timestamp: 1_700_000_000_000,
  height: 1,
  seed: new Uint8Array(32),
  limits: DEFAULT_JOB_LIMITS,
});

async function timed(run: () => unknown): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// WASM: alternate bare and metered runs; the module is compiled once on each side (first runs warm up).
const wasmJob = spec('wasm', wasm, new Uint8Array(0));
const expected = bareWasm();
const metered = await executeJob(wasmJob);
if (new DataView(metered.output.buffer, metered.output.byteOffset).getBigUint64(0, true) !== expected)
  throw new Error('metered WASM computed something else than bare WASM');
const bareTimes: number[] = [];
const meteredTimes: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  bareTimes.push(await timed(bareWasm));
  meteredTimes.push(await timed(() => executeJob(wasmJob)));
}

// EVM: a bare EVM made once and reused, against a job (which gets a fresh EVM and state each run).
const n = 20_000n;
const calldata = Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
const bareEvm = await createEVM({ common: new Common({ chain: Mainnet, hardfork: EVM_HARDFORK }) });
const evmJob = spec('evm', SUM_TO_N, calldata);
const evmOutcome = await runEvm(evmJob);
if (BigInt(`0x${Buffer.from(evmOutcome.output).toString('hex')}`) !== (n * (n + 1n)) / 2n)
  throw new Error('the EVM job computed the wrong sum');
const bareEvmTimes: number[] = [];
const evmTimes: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  bareEvmTimes.push(await timed(() => bareEvm.runCode({ code: SUM_TO_N, data: calldata, gasLimit: 1n << 40n })));
  evmTimes.push(await timed(() => runEvm(evmJob)));
}

process.stdout.write(
  `${JSON.stringify({
    rounds: ROUNDS,
    wasm: { meteredMs: median(meteredTimes), bareMs: median(bareTimes), gasUsed: metered.gasUsed.toString() },
    evm: {
      jobMs: median(evmTimes),
      bareMs: median(bareEvmTimes),
      gasUsed: evmOutcome.gasUsed.toString(),
      n: n.toString(),
    },
  })}\n`,
);
