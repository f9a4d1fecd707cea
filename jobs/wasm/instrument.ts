import { ModuleRejectedError, Reader, Writer } from './binary.js';
import { readInstruction, valueType, type Instruction } from './instructions.js';
import { WASI_FUNCTIONS, WASI_MODULE } from './wasi-names.js';

/**
 * Deterministic metering for WASM jobs, written into the module itself so the same module gives the
 * same `gasUsed` on every node and every run (wall time never enters):
 *
 * - gas: a mutable i64 global, exported as `__svc_gas`, set to the job's gas limit before `_start`.
 *   Every straight-line segment of a function (from its start, or after a block, loop, if, else, end
 *   or branch, up to the next of them) first subtracts its instruction count and traps once the gas
 *   is negative; memory.grow, the bulk memory and table instructions also pay by size. A trap with
 *   the gas below zero is `out_of_gas`.
 * - call depth: an i32 global (`__svc_depth`) counted up on entry and down on every exit of every
 *   function that calls others (a leaf adds one frame at most); past the limit the call traps, long
 *   before the engine's own stack would (whose depth depends on frame sizes, so would not be
 *   deterministic).
 * - memory: the memory's maximum is lowered to the job's page limit (memory.grow beyond it returns -1,
 *   as the standard says); a module that needs more at start is refused. Tables likewise.
 * - NaN: every float operation that may produce a NaN is followed by a canonicalization to the one
 *   quiet NaN (0x7fc00000 / 0x7ff8000000000000): the standard leaves NaN payloads to the machine.
 *
 * Refused outright (`ModuleRejectedError` naming the feature): SIMD, threads and shared memory,
 * exceptions, tail calls, GC and typed function references, memory64, more than one memory,
 * imports other than WASI preview 1's functions.
 */

export interface MeteringLimits {
  /** Most 64 KiB pages the module's memory may have. */
  readonly maxMemoryPages: number;
  /** Most nested calls. */
  readonly maxCallDepth: number;
  /** Most table elements. */
  readonly maxTableElements: number;
}

/** The exports the instrumenter adds, for the runner. */
export const GAS_EXPORT = '__svc_gas';
export const DEPTH_EXPORT = '__svc_depth';

/** Gas per 64 KiB page that memory.grow asks for (growing is zeroing that memory). */
export const GAS_PER_PAGE = 4096n;
/** Bulk memory instructions pay one gas per 2^BYTE_SHIFT bytes, table instructions one per element. */
const BYTE_SHIFT = 3n;

const I32 = 0x7f;
const I64 = 0x7e;
const F32 = 0x7d;
const F64 = 0x7c;

/** Float operations whose result may be a NaN with a machine-chosen payload. */
const F32_NAN_OPS = new Set([0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0xb6]);
const F64_NAN_OPS = new Set([0x9b, 0x9c, 0x9d, 0x9e, 0x9f, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xbb]);
/** Control instructions: a metering segment ends with each. */
const SEGMENT_ENDS = new Set([0x00, 0x02, 0x03, 0x04, 0x05, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f]);

interface FuncType {
  readonly params: number[];
  readonly results: number[];
}

interface Section {
  readonly id: number;
  body: Uint8Array;
}

export interface InstrumentedModule {
  readonly bytes: Uint8Array;
  /** WASI functions the module imports (the runner provides exactly these). */
  readonly imports: readonly string[];
}

export function instrument(module: Uint8Array, limits: MeteringLimits): InstrumentedModule {
  const sections = splitSections(module);
  const types = sections.has(1) ? readTypes(sections.get(1)!.body) : [];
  const imports = sections.has(2) ? readImports(sections.get(2)!.body) : [];
  const funcTypes = sections.has(3) ? readFunctionTypes(sections.get(3)!.body) : [];
  const definedGlobals = sections.has(6) ? new Reader(sections.get(6)!.body).u32() : 0;
  if (sections.has(4)) sections.get(4)!.body = capTables(sections.get(4)!.body, limits.maxTableElements);
  if (!sections.has(5))
    throw new ModuleRejectedError('the module defines no memory (a WASI command exports "memory")', 'no memory');
  sections.get(5)!.body = capMemory(sections.get(5)!.body, limits.maxMemoryPages);
  checkExports(sections.get(7)?.body);

  const gas = definedGlobals;
  const depth = definedGlobals + 1;
  const extraTypes: FuncType[] = [];
  // A block of the function's results: empty, one value type, or (multi-value) an added type `[] -> results`.
  const blockType = (results: number[]): ArrayLike<number> => {
    if (results.length === 0) return [0x40];
    if (results.length === 1) return [results[0]!];
    extraTypes.push({ params: [], results });
    return new Writer().s32(types.length + extraTypes.length - 1).finish();
  };
  const importedFunctions = imports.length;
  const code = sections.get(10);
  if (code) {
    const r = new Reader(code.body);
    const count = r.u32();
    if (count !== funcTypes.length)
      throw new ModuleRejectedError('the code and function sections disagree', 'malformed');
    const out = new Writer().u32(count);
    for (let i = 0; i < count; i++) {
      const size = r.u32();
      const type = types[funcTypes[i]!];
      if (!type) throw new ModuleRejectedError(`function ${importedFunctions + i} has an unknown type`, 'malformed');
      const body = rewriteBody(new Reader(r.bytes, r.offset, r.offset + size), type, {
        gas,
        depth,
        maxDepth: limits.maxCallDepth,
        blockType,
      });
      r.offset += size;
      out.u32(body.length).bytes(body);
    }
    code.body = out.finish();
  }
  if (extraTypes.length > 0) sections.get(1)!.body = appendTypes(sections.get(1)!.body, extraTypes);
  sections.set(6, { id: 6, body: appendGlobals(sections.get(6)?.body) });
  sections.get(7)!.body = appendExports(sections.get(7)!.body, gas, depth);
  return { bytes: joinSections(sections), imports };
}

// --- sections -----------------------------------------------------------------------------------

/** Section ids in the order the binary format requires (the data count section sits before code). */
const SECTION_ORDER = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 10, 11];

function splitSections(bytes: Uint8Array): Map<number, Section> {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d)
    throw new ModuleRejectedError('not a WebAssembly module (bad magic number)', 'malformed');
  if (bytes[4] !== 1 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0)
    throw new ModuleRejectedError('not a WebAssembly 1.0 binary (a component, or another version)', 'component model');
  const r = new Reader(bytes, 8);
  const sections = new Map<number, Section>();
  let last = -1;
  while (!r.done) {
    const id = r.byte();
    const body = r.take(r.u32());
    if (id === 0) continue; // custom sections (names, producers, debug info) are dropped
    if (id === 13) throw new ModuleRejectedError('the module declares exception tags', 'exception handling');
    const order = SECTION_ORDER.indexOf(id);
    if (order < 0) throw new ModuleRejectedError(`unknown section ${id}`, 'malformed');
    if (order <= last) throw new ModuleRejectedError(`section ${id} is out of order or repeated`, 'malformed');
    last = order;
    sections.set(id, { id, body });
  }
  return sections;
}

function joinSections(sections: Map<number, Section>): Uint8Array {
  const out = new Writer().bytes([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  for (const id of SECTION_ORDER) {
    const section = sections.get(id);
    if (section) out.byte(id).u32(section.body.length).bytes(section.body);
  }
  return out.finish();
}

function readTypes(body: Uint8Array): FuncType[] {
  const r = new Reader(body);
  const count = r.u32();
  const types: FuncType[] = [];
  for (let i = 0; i < count; i++) {
    const form = r.byte();
    if (form !== 0x60)
      throw new ModuleRejectedError(
        'the module declares non-function types (recursive or struct types)',
        'garbage collection',
      );
    const params = Array.from({ length: r.u32() }, () => valueType(r.byte()));
    const results = Array.from({ length: r.u32() }, () => valueType(r.byte()));
    types.push({ params, results });
  }
  return types;
}

function appendTypes(body: Uint8Array, extra: readonly FuncType[]): Uint8Array {
  const r = new Reader(body);
  const count = r.u32();
  const out = new Writer().u32(count + extra.length).bytes(body.subarray(r.offset));
  for (const type of extra)
    out.byte(0x60).u32(type.params.length).bytes(type.params).u32(type.results.length).bytes(type.results);
  return out.finish();
}

/** The WASI functions imported, in import order; anything else is refused. */
function readImports(body: Uint8Array): string[] {
  const r = new Reader(body);
  const count = r.u32();
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const module = r.name();
    const name = r.name();
    const kind = r.byte();
    if (kind !== 0)
      throw new ModuleRejectedError(
        `the module imports ${['a function', 'a table', 'a memory', 'a global', 'a tag'][kind] ?? 'something'} (${module}.${name}); a job defines its own memory and imports only WASI functions`,
        'imports',
      );
    r.u32();
    if (module !== WASI_MODULE || !WASI_FUNCTIONS.has(name))
      throw new ModuleRejectedError(
        `the module imports ${module}.${name}; a job may import only ${WASI_MODULE} functions`,
        `import ${module}.${name}`,
      );
    names.push(name);
  }
  return names;
}

function readFunctionTypes(body: Uint8Array): number[] {
  const r = new Reader(body);
  return Array.from({ length: r.u32() }, () => r.u32());
}

/** Rewrites limits so that max ≤ cap; refuses a minimum above the cap, shared and 64-bit limits. */
function capLimits(r: Reader, out: Writer, cap: number, what: string): void {
  const flags = r.byte();
  if (flags & 0x02) throw new ModuleRejectedError(`the module's ${what} is shared`, 'threads and atomics');
  if (flags & 0x04) throw new ModuleRejectedError(`the module's ${what} is 64-bit`, 'memory64');
  if (flags > 1) throw new ModuleRejectedError(`the module's ${what} has unknown limits`, 'malformed');
  const min = r.u32();
  const max = flags === 1 ? r.u32() : undefined;
  if (min > cap)
    throw new ModuleRejectedError(`the module's ${what} starts at ${min}, over the limit of ${cap}`, `${what} limit`);
  out
    .byte(1)
    .u32(min)
    .u32(Math.min(max ?? cap, cap));
}

function capMemory(body: Uint8Array, maxPages: number): Uint8Array {
  const r = new Reader(body);
  const count = r.u32();
  if (count !== 1)
    throw new ModuleRejectedError(
      count === 0 ? 'the module defines no memory' : 'the module defines more than one memory',
      count === 0 ? 'no memory' : 'multi-memory',
    );
  const out = new Writer().u32(1);
  capLimits(r, out, maxPages, 'memory');
  return out.finish();
}

function capTables(body: Uint8Array, maxElements: number): Uint8Array {
  const r = new Reader(body);
  const count = r.u32();
  const out = new Writer().u32(count);
  for (let i = 0; i < count; i++) {
    out.byte(valueType(r.byte()));
    capLimits(r, out, maxElements, 'table');
  }
  return out.finish();
}

function checkExports(body: Uint8Array | undefined): void {
  const names = new Map<string, number>();
  if (body) {
    const r = new Reader(body);
    const count = r.u32();
    for (let i = 0; i < count; i++) {
      const name = r.name();
      names.set(name, r.byte());
      r.u32();
    }
  }
  if (names.get('_start') !== 0)
    throw new ModuleRejectedError(
      'the module exports no "_start" function: a job is a WASI command module',
      'not a command',
    );
  if (names.get('memory') !== 2) throw new ModuleRejectedError('the module exports no "memory"', 'no memory');
  for (const reserved of [GAS_EXPORT, DEPTH_EXPORT])
    if (names.has(reserved))
      throw new ModuleRejectedError(`the module exports "${reserved}", a name the runtime reserves`, 'reserved export');
}

function appendGlobals(body: Uint8Array | undefined): Uint8Array {
  const r = body ? new Reader(body) : undefined;
  const count = r ? r.u32() : 0;
  const out = new Writer().u32(count + 2);
  if (r && body) out.bytes(body.subarray(r.offset));
  out.byte(I64).byte(1).byte(0x42).s64(0n).byte(0x0b); // gas: mut i64 = 0
  out.byte(I32).byte(1).byte(0x41).s32(0).byte(0x0b); // depth: mut i32 = 0
  return out.finish();
}

function appendExports(body: Uint8Array, gas: number, depth: number): Uint8Array {
  const r = new Reader(body);
  const count = r.u32();
  return new Writer()
    .u32(count + 2)
    .bytes(body.subarray(r.offset))
    .name(GAS_EXPORT)
    .byte(3)
    .u32(gas)
    .name(DEPTH_EXPORT)
    .byte(3)
    .u32(depth)
    .finish();
}

// --- function bodies ----------------------------------------------------------------------------

interface BodyContext {
  readonly gas: number;
  readonly depth: number;
  readonly maxDepth: number;
  readonly blockType: (results: number[]) => ArrayLike<number>;
}

function rewriteBody(r: Reader, type: FuncType, ctx: BodyContext): Uint8Array {
  const out = new Writer();
  // Locals: the original declarations, then three scratch locals (i32, f32, f64).
  const groups = r.u32();
  let locals = type.params.length;
  const declared: [number, number][] = [];
  for (let i = 0; i < groups; i++) {
    const n = r.u32();
    declared.push([n, valueType(r.byte())]);
    locals += n;
  }
  if (locals > 50_000) throw new ModuleRejectedError('a function declares more than 50,000 locals', 'locals limit');
  const scratch = { i32: locals, f32: locals + 1, f64: locals + 2 };
  out.u32(groups + 3);
  for (const [n, t] of declared) out.u32(n).byte(t);
  out.u32(1).byte(I32).u32(1).byte(F32).u32(1).byte(F64);

  const instructions: Instruction[] = [];
  let nesting = 0;
  while (!r.done) {
    const instruction = readInstruction(r);
    instructions.push(instruction);
    if (instruction.op === 0x02 || instruction.op === 0x03 || instruction.op === 0x04) nesting++;
    else if (instruction.op === 0x0b && nesting-- === 0) break;
  }
  if (!r.done || nesting !== -1)
    throw new ModuleRejectedError('a function body does not end where its size says', 'malformed');

  const bytes = r.bytes;
  const charge = (cost: number): void => {
    out.byte(0x23).u32(ctx.gas).byte(0x42).s64(BigInt(cost)).byte(0x7d).byte(0x24).u32(ctx.gas);
    trapIfOutOfGas();
  };
  const trapIfOutOfGas = (): void => {
    out.byte(0x23).u32(ctx.gas).byte(0x42).s64(0n).byte(0x53).byte(0x04).byte(0x40).byte(0x00).byte(0x0b);
  };
  /** Pays for the i32 size operand on top of the stack (kept there): `size × perUnit`, or `size >> shift`. */
  const chargeBySize = (scale: { mul: bigint } | { shift: bigint }): void => {
    out.byte(0x21).u32(scratch.i32).byte(0x23).u32(ctx.gas).byte(0x20).u32(scratch.i32).byte(0xad);
    if ('mul' in scale) out.byte(0x42).s64(scale.mul).byte(0x7e);
    else out.byte(0x42).s64(scale.shift).byte(0x88);
    out.byte(0x7d).byte(0x24).u32(ctx.gas);
    trapIfOutOfGas();
    out.byte(0x20).u32(scratch.i32);
  };
  const leave = (): void => {
    out.byte(0x23).u32(ctx.depth).byte(0x41).s32(1).byte(0x6b).byte(0x24).u32(ctx.depth);
  };

  // A function that calls nothing cannot deepen the stack further: only callers count their depth.
  const counted = instructions.some((ins) => ins.op === 0x10 || ins.op === 0x11);
  if (counted) {
    // Entry: count the call, trap past the depth limit; the body runs inside a block of the function's
    // results, so a branch to the function's own label also comes out through the exit below.
    out.byte(0x23).u32(ctx.depth).byte(0x41).s32(1).byte(0x6a).byte(0x24).u32(ctx.depth);
    out.byte(0x23).u32(ctx.depth).byte(0x41).s32(ctx.maxDepth).byte(0x4b).byte(0x04).byte(0x40).byte(0x00).byte(0x0b);
    out.byte(0x02).bytes(ctx.blockType(type.results));
  }

  let segmentStart = true;
  for (let i = 0; i < instructions.length; i++) {
    const ins = instructions[i]!;
    if (segmentStart) {
      let cost = 0;
      for (let j = i; j < instructions.length; j++) {
        cost++;
        if (SEGMENT_ENDS.has(instructions[j]!.op)) break;
      }
      charge(cost);
      segmentStart = false;
    }
    if (ins.op === 0x0f && counted) leave();
    if (ins.op === 0x40) chargeBySize({ mul: GAS_PER_PAGE });
    else if (
      ins.op === 0xfc &&
      ins.sub !== undefined &&
      ins.sub >= 8 &&
      ins.sub !== 9 &&
      ins.sub !== 13 &&
      ins.sub !== 16
    )
      chargeBySize(ins.sub <= 11 ? { shift: BYTE_SHIFT } : { mul: 1n });
    out.bytes(bytes.subarray(ins.start, ins.end));
    if (F32_NAN_OPS.has(ins.op))
      out
        .byte(0x21)
        .u32(scratch.f32)
        .byte(0x43)
        .bytes([0, 0, 0xc0, 0x7f])
        .byte(0x20)
        .u32(scratch.f32)
        .byte(0x20)
        .u32(scratch.f32)
        .byte(0x20)
        .u32(scratch.f32)
        .byte(0x5c)
        .byte(0x1b);
    else if (F64_NAN_OPS.has(ins.op))
      out
        .byte(0x21)
        .u32(scratch.f64)
        .byte(0x44)
        .bytes([0, 0, 0, 0, 0, 0, 0xf8, 0x7f])
        .byte(0x20)
        .u32(scratch.f64)
        .byte(0x20)
        .u32(scratch.f64)
        .byte(0x20)
        .u32(scratch.f64)
        .byte(0x62)
        .byte(0x1b);
    if (SEGMENT_ENDS.has(ins.op)) segmentStart = true;
  }
  if (counted) {
    // The original final `end` closed the wrapping block; now leave and close the function.
    leave();
    out.byte(0x0b);
  }
  return out.finish();
}
