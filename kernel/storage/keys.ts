/** Fixed-width big-endian u64, so numeric keys sort in numeric order. */
export function u64Key(value: number | bigint): Uint8Array {
  const out = new Uint8Array(8);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) writeU64(out, 0, value);
  else new DataView(out.buffer).setBigUint64(0, BigInt(value));
  return out;
}

/**
 * Writes a safe non-negative integer as a big-endian u64 at `offset`, byte by byte: a DataView needs
 * the array's `buffer`, which makes V8 move a small array's bytes off its heap (a malloc per key).
 */
export function writeU64(target: Uint8Array, offset: number, value: number): void {
  const high = Math.floor(value / 0x100000000);
  const low = value >>> 0;
  writeU32(target, offset, high);
  writeU32(target, offset + 4, low);
}

/** Writes a u32 big-endian at `offset` (see `writeU64`). */
export function writeU32(target: Uint8Array, offset: number, value: number): void {
  target[offset] = value >>> 24;
  target[offset + 1] = (value >>> 16) & 0xff;
  target[offset + 2] = (value >>> 8) & 0xff;
  target[offset + 3] = value & 0xff;
}

export function readU64Key(bytes: Uint8Array, offset = 0): bigint {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(offset);
}

/** The smallest key greater than every key starting with `prefix` (undefined when none exists). */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  return undefined;
}
