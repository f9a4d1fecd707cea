/** Reading and writing the WebAssembly binary format's primitives (LEB128 integers, names, vectors). */

/** A module the instrumenter cannot accept: `feature` names what (for `job_rejected`'s data). */
export class ModuleRejectedError extends Error {
  override name = 'ModuleRejectedError';
  constructor(
    message: string,
    readonly feature: string,
  ) {
    super(message);
  }
}

export class Reader {
  offset: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
  ) {
    this.offset = start;
  }

  get done(): boolean {
    return this.offset >= this.end;
  }

  byte(): number {
    if (this.offset >= this.end)
      throw new ModuleRejectedError('the module ends in the middle of a section', 'malformed');
    return this.bytes[this.offset++]!;
  }

  /** Unsigned LEB128 up to 32 bits. */
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      // A u32 takes at most 5 bytes; a 6th would be shifted past 32 bits (JS shifts wrap) and misread.
      if (shift >= 35) throw new ModuleRejectedError('an integer is longer than 5 bytes', 'malformed');
    }
    return result >>> 0;
  }

  /** Skips a signed LEB128 of any width (i32 / i64 constants, block types). */
  skipLeb(): void {
    for (let i = 0; i < 10; i++) if ((this.byte() & 0x80) === 0) return;
    throw new ModuleRejectedError('an integer is longer than 10 bytes', 'malformed');
  }

  /** A signed LEB128 as a JS number (block types: negative = a value type, else a type index). */
  s33(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80 && shift < 35);
    if (b & 0x40) result -= 2 ** shift;
    return result;
  }

  take(length: number): Uint8Array {
    if (this.offset + length > this.end)
      throw new ModuleRejectedError('a length runs past the end of its section', 'malformed');
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  name(): string {
    return new TextDecoder('utf-8', { fatal: true }).decode(this.take(this.u32()));
  }
}

export class Writer {
  private chunks: number[] = [];

  byte(value: number): this {
    this.chunks.push(value & 0xff);
    return this;
  }

  bytes(values: ArrayLike<number>): this {
    for (let i = 0; i < values.length; i++) this.chunks.push(values[i]!);
    return this;
  }

  u32(value: number): this {
    let v = value >>> 0;
    do {
      let b = v & 0x7f;
      v >>>= 7;
      if (v !== 0) b |= 0x80;
      this.chunks.push(b);
    } while (v !== 0);
    return this;
  }

  /** Signed LEB128 of a bigint (i64 constants). */
  s64(value: bigint): this {
    let v = value;
    for (;;) {
      const b = Number(v & 0x7fn);
      v >>= 7n;
      const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
      this.chunks.push(done ? b : b | 0x80);
      if (done) return this;
    }
  }

  s32(value: number): this {
    return this.s64(BigInt(value));
  }

  name(text: string): this {
    const encoded = new TextEncoder().encode(text);
    return this.u32(encoded.length).bytes(encoded);
  }

  get length(): number {
    return this.chunks.length;
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }
}
