import { ModuleRejectedError, type Reader } from './binary.js';

/**
 * One instruction of a function body, decoded far enough to rewrite the body around it: where its
 * bytes are, and the little the instrumenter needs (its kind, a block's type).
 */
export interface Instruction {
  readonly op: number;
  /** The sub-opcode of a 0xFC-prefixed instruction. */
  readonly sub?: number;
  readonly start: number;
  readonly end: number;
}

/** Refused proposals, by the opcode (or prefix) that introduces them: the job is rejected naming the feature. */
const REFUSED: Readonly<Record<number, string>> = {
  0x06: 'exception handling',
  0x07: 'exception handling',
  0x08: 'exception handling',
  0x09: 'exception handling',
  0x0a: 'exception handling',
  0x18: 'exception handling',
  0x19: 'exception handling',
  0x1f: 'exception handling',
  0x12: 'tail calls',
  0x13: 'tail calls',
  0x14: 'typed function references',
  0x15: 'typed function references',
  0xd3: 'typed function references',
  0xd4: 'typed function references',
  0xd5: 'garbage collection',
  0xd6: 'typed function references',
  0xfb: 'garbage collection',
  0xfd: 'SIMD (its NaN and relaxed results are not deterministic)',
  0xfe: 'threads and atomics',
};

function memarg(r: Reader): void {
  const align = r.u32();
  if (align & 0x40) throw new ModuleRejectedError('the module uses more than one memory', 'multi-memory');
  r.u32();
}

function zeroByte(r: Reader, what: string): void {
  if (r.byte() !== 0) throw new ModuleRejectedError(`${what} names a memory other than memory 0`, 'multi-memory');
}

/** Decodes the instruction at the reader's position and moves past it. */
export function readInstruction(r: Reader): Instruction {
  const start = r.offset;
  const op = r.byte();
  const refused = REFUSED[op];
  if (refused)
    throw new ModuleRejectedError(`the module uses ${refused} (opcode 0x${op.toString(16)})`, refused.split(' (')[0]!);
  let sub: number | undefined;
  switch (op) {
    case 0x02: // block
    case 0x03: // loop
    case 0x04: // if
      r.s33();
      break;
    case 0x0c: // br
    case 0x0d: // br_if
    case 0x10: // call
    case 0x20: // local.get
    case 0x21: // local.set
    case 0x22: // local.tee
    case 0x23: // global.get
    case 0x24: // global.set
    case 0x25: // table.get
    case 0x26: // table.set
    case 0xd2: // ref.func
      r.u32();
      break;
    case 0x0e: {
      // br_table
      const count = r.u32();
      for (let i = 0; i <= count; i++) r.u32();
      break;
    }
    case 0x11: // call_indirect typeidx tableidx
      r.u32();
      r.u32();
      break;
    case 0x1c: {
      // select with types
      const count = r.u32();
      for (let i = 0; i < count; i++) valueType(r.byte());
      break;
    }
    case 0x3f: // memory.size
    case 0x40: // memory.grow
      zeroByte(r, 'memory.size/grow');
      break;
    case 0x41: // i32.const
    case 0x42: // i64.const
      r.skipLeb();
      break;
    case 0x43:
      r.take(4);
      break;
    case 0x44:
      r.take(8);
      break;
    case 0xd0: // ref.null
      valueType(r.byte());
      break;
    case 0xfc:
      sub = r.u32();
      miscImmediates(r, sub);
      break;
    default:
      if (op >= 0x28 && op <= 0x3e) memarg(r);
      else if (
        !(
          op <= 0x01 ||
          op === 0x05 ||
          op === 0x0b ||
          op === 0x0f ||
          op === 0x1a ||
          op === 0x1b ||
          (op >= 0x45 && op <= 0xc4) ||
          op === 0xd1
        )
      ) {
        throw new ModuleRejectedError(`unknown opcode 0x${op.toString(16)}`, 'unknown instruction');
      }
  }
  return { op, sub, start, end: r.offset };
}

function miscImmediates(r: Reader, sub: number): void {
  if (sub <= 7) return; // saturating truncations
  switch (sub) {
    case 8: // memory.init dataidx 0x00
      r.u32();
      zeroByte(r, 'memory.init');
      return;
    case 9: // data.drop
    case 13: // elem.drop
    case 15: // table.grow
    case 16: // table.size
    case 17: // table.fill
      r.u32();
      return;
    case 10: // memory.copy 0x00 0x00
      zeroByte(r, 'memory.copy');
      zeroByte(r, 'memory.copy');
      return;
    case 11: // memory.fill
      zeroByte(r, 'memory.fill');
      return;
    case 12: // table.init elemidx tableidx
    case 14: // table.copy
      r.u32();
      r.u32();
      return;
    default:
      throw new ModuleRejectedError(`unknown instruction 0xfc ${sub}`, 'unknown instruction');
  }
}

/** Value types the runtime accepts: numbers and the two reference types; v128 is SIMD. */
export function valueType(byte: number): number {
  if (byte === 0x7f || byte === 0x7e || byte === 0x7d || byte === 0x7c || byte === 0x70 || byte === 0x6f) return byte;
  if (byte === 0x7b) throw new ModuleRejectedError('the module uses SIMD values (v128)', 'SIMD');
  throw new ModuleRejectedError(`unsupported value type 0x${byte.toString(16)}`, 'garbage collection');
}
