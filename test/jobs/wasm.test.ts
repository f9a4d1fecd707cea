import { describe, expect, it } from 'vitest';
import { ModuleRejectedError } from '../../jobs/wasm/binary.js';
import { instrument, GAS_PER_PAGE } from '../../jobs/wasm/instrument.js';
import { runWasm } from '../../jobs/wasm/run.js';
import type { JobOutcome } from '../../jobs/outcome.js';
import { fixture, wat } from '../helpers/wat.js';

const LIMITS = { maxMemoryPages: 16, maxCallDepth: 1000, maxTableElements: 10_000 };

function run(
  code: Uint8Array,
  options: { input?: string; gasLimit?: bigint; args?: string[]; seed?: Uint8Array } = {},
): JobOutcome {
  const instrumented = instrument(code, LIMITS);
  const module = new WebAssembly.Module(instrumented.bytes);
  return runWasm(module, instrumented, {
    args: options.args ?? ['job'],
    stdin: new TextEncoder().encode(options.input ?? ''),
    clockNs: 1_700_000_000_000_000_000n,
    seed: options.seed ?? new Uint8Array(32),
    maxOutputBytes: 1 << 20,
    maxLogBytes: 1 << 16,
    gasLimit: options.gasLimit ?? 10_000_000n,
    maxCallDepth: LIMITS.maxCallDepth,
  });
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('a metered WASI job', () => {
  it('reads its input from stdin and writes its output to stdout', () => {
    const outcome = run(fixture('upper'), { input: 'hello, world' });
    expect(text(outcome.output)).toBe('HELLO, WORLD');
    expect(outcome.exit).toEqual({ kind: 'exit', code: 0 });
    expect(outcome.gasUsed).toBeGreaterThan(0n);
  });

  it('answers poll_oneoff with the ready descriptors, and with the earliest clock only when none was asked for; sockets are refused as WASI says', () => {
    const out = Buffer.from(run(fixture('poll')).output);
    expect({
      firstPollEvents: out.readUInt32LE(0),
      clocksOnlyEvents: out.readUInt32LE(4),
      shutdownStdout: out.readUInt32LE(8),
      shutdownUnopened: out.readUInt32LE(12),
      firstEvent: out.readBigUInt64LE(16),
      firstEventError: out.readUInt32LE(24),
      clockEvent: out.readBigUInt64LE(28),
    }).toEqual({
      firstPollEvents: 1,
      clocksOnlyEvents: 1,
      shutdownStdout: 57,
      shutdownUnopened: 8,
      firstEvent: 22n,
      firstEventError: 0,
      clockEvent: 33n,
    });
  });

  it('gives one output and one gasUsed on every run', () => {
    const code = fixture('upper');
    const input = 'the quick brown fox '.repeat(200);
    const outcomes = Array.from({ length: 100 }, () => run(code, { input }));
    expect(new Set(outcomes.map((o) => `${o.gasUsed}:${hex(o.output)}`)).size).toBe(1);
  });

  it('counts gas per instruction executed, not by time: three nops and the end cost 4', () => {
    expect(run(fixture('straight')).gasUsed).toBe(4n);
  });

  it('ends an endless loop out of gas, with gasUsed equal to the gas limit', () => {
    const outcome = run(fixture('spin'), { gasLimit: 1_000_000n });
    expect(outcome.exit).toEqual({ kind: 'out_of_gas' });
    expect(outcome.gasUsed).toBe(1_000_000n);
  });

  it('traps a memory bomb at the memory cap, having paid for every page it got', () => {
    const outcome = run(fixture('memory-bomb'));
    expect(outcome.exit).toEqual({ kind: 'trap', reason: 'unreachable' });
    expect(outcome.gasUsed).toBeGreaterThan(BigInt(LIMITS.maxMemoryPages - 1) * GAS_PER_PAGE);
  });

  it('traps a recursion bomb at the call depth cap', () => {
    expect(run(fixture('recursion-bomb')).exit).toEqual({ kind: 'trap', reason: 'call depth limit' });
  });

  it('refuses SIMD and imports outside WASI, naming them', () => {
    expect(() => instrument(fixture('simd'), LIMITS)).toThrow(ModuleRejectedError);
    try {
      instrument(fixture('simd'), LIMITS);
    } catch (error) {
      expect((error as ModuleRejectedError).feature).toBe('SIMD');
    }
    expect(() => instrument(fixture('env-import'), LIMITS)).toThrow(/imports env\.now/);
  });

  it('refuses a module that is not a WASI command, or that needs more memory than the cap', () => {
    expect(() => instrument(wat('(module (memory (export "memory") 1))'), LIMITS)).toThrow(/_start/);
    expect(() => instrument(wat('(module (memory (export "memory") 17) (func (export "_start")))'), LIMITS)).toThrow(
      /memory starts at 17, over the limit of 16/,
    );
    expect(() => instrument(new Uint8Array([1, 2, 3]), LIMITS)).toThrow(/not a WebAssembly module/);
  });

  it('makes NaN results canonical, whatever the machine produces', () => {
    expect(hex(run(fixture('nan')).output)).toBe('0000c07f' + '000000000000f87f');
  });

  it('sees the block time as its clock, a random stream seeded by the job id, its args, and exits with its code', () => {
    const seedA = new Uint8Array(32).fill(1);
    const a = run(fixture('environment'), { seed: seedA, args: ['job', 'x', 'y'] });
    const again = run(fixture('environment'), { seed: seedA, args: ['job', 'x', 'y'] });
    const b = run(fixture('environment'), { seed: new Uint8Array(32).fill(2), args: ['job', 'x', 'y'] });
    expect(a.exit).toEqual({ kind: 'exit', code: 3 });
    const view = new DataView(a.output.buffer, a.output.byteOffset);
    expect(view.getBigUint64(0, true)).toBe(1_700_000_000_000_000_000n);
    expect(view.getUint32(16, true)).toBe(3);
    expect(hex(a.output)).toBe(hex(again.output));
    expect(hex(a.output.subarray(8, 16))).not.toBe(hex(b.output.subarray(8, 16)));
  });

  it('keeps an instrumented module valid and its exports intact', () => {
    const instrumented = instrument(fixture('upper'), LIMITS);
    expect(WebAssembly.validate(instrumented.bytes)).toBe(true);
    expect(instrumented.imports).toEqual(['fd_read', 'fd_write']);
  });
});

describe('the module reader', () => {
  it('refuses a u32 longer than 5 bytes instead of misreading it', async () => {
    const { Reader } = await import('../../jobs/wasm/binary.js');
    expect(new Reader(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f])).u32()).toBe(0xffffffff);
    expect(() => new Reader(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).u32()).toThrow(
      /longer than 5 bytes/,
    );
  });
});
