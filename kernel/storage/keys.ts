/** Fixed-width big-endian u64, so numeric keys sort in numeric order. */
export function u64Key(value: number | bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value));
  return out;
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
