import { decode as cborgDecode, encode as cborgEncode } from 'cborg';

/**
 * The chain's CBOR (see encoding.ts) for the values nearly all of its data is made of — ASCII
 * strings, safe integers, booleans, null, byte strings, arrays and plain objects — written and read
 * directly, without cborg's token tree: the same bytes and values, several times faster and with a
 * fraction of the garbage (every block encodes and decodes thousands of records). Anything else
 * (non-ASCII text, floats, bigints, undefined, maps, tags, indefinite lengths, malformed input) is
 * handed whole to cborg, so the result is always exactly cborg's, errors included.
 */

/** Thrown inside the fast paths to hand a value to cborg; never escapes. */
const UNSUPPORTED: unique symbol = Symbol('unsupported by the fast path');

// --- encoding -------------------------------------------------------------------------------------

let out = new Uint8Array(8192);
let at = 0;

function room(bytes: number): void {
  if (at + bytes <= out.length) return;
  const grown = new Uint8Array(Math.max(out.length * 2, at + bytes));
  grown.set(out.subarray(0, at));
  out = grown;
}

/** A major type's head with its argument in the shortest form. */
function head(major: number, n: number): void {
  room(9);
  const m = major << 5;
  if (n < 24) out[at++] = m | n;
  else if (n < 0x100) {
    out[at++] = m | 24;
    out[at++] = n;
  } else if (n < 0x10000) {
    out[at++] = m | 25;
    out[at++] = n >>> 8;
    out[at++] = n & 0xff;
  } else if (n < 0x100000000) {
    out[at++] = m | 26;
    out[at++] = n >>> 24;
    out[at++] = (n >>> 16) & 0xff;
    out[at++] = (n >>> 8) & 0xff;
    out[at++] = n & 0xff;
  } else {
    const high = Math.floor(n / 0x100000000);
    const low = n >>> 0;
    out[at++] = m | 27;
    out[at++] = high >>> 24;
    out[at++] = (high >>> 16) & 0xff;
    out[at++] = (high >>> 8) & 0xff;
    out[at++] = high & 0xff;
    out[at++] = low >>> 24;
    out[at++] = (low >>> 16) & 0xff;
    out[at++] = (low >>> 8) & 0xff;
    out[at++] = low & 0xff;
  }
}

function text(s: string): void {
  const n = s.length;
  head(3, n);
  room(n);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) throw UNSUPPORTED;
    out[at++] = c;
  }
}

/** Canonical map order for ASCII keys: shorter first, then bytewise (UTF-16 units are the bytes). */
function keyOrder(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Canonical key orders of the object shapes seen, by first key: records of one kind (accounts,
 * receipts) have the same keys in the same order, so their order is sorted once. Sorting each time
 * cost more than encoding the record (and garbage: V8's sort copies the array).
 */
const keyOrders = new Map<string, { readonly keys: readonly string[]; readonly sorted: string[] }[]>();
const MAX_SHAPES_PER_FIRST_KEY = 8;
const MAX_FIRST_KEYS = 1024;

function canonicalKeys(record: object): string[] {
  const keys = Object.keys(record);
  if (keys.length < 2) return keys;
  const shapes = keyOrders.get(keys[0]!);
  if (shapes)
    for (const shape of shapes) {
      if (shape.keys.length !== keys.length) continue;
      let same = true;
      for (let i = 1; i < keys.length && same; i++) same = shape.keys[i] === keys[i];
      if (same) return shape.sorted;
    }
  const sorted = [...keys].sort(keyOrder);
  // Maps with keys of their own (addresses, ids) have shapes that do not recur: those stop being kept.
  if (shapes) {
    if (shapes.length < MAX_SHAPES_PER_FIRST_KEY) shapes.push({ keys, sorted });
  } else if (keyOrders.size < MAX_FIRST_KEYS) keyOrders.set(keys[0]!, [{ keys, sorted }]);
  return sorted;
}

function value(v: unknown): void {
  switch (typeof v) {
    case 'string':
      return text(v);
    case 'number':
      if (!Number.isSafeInteger(v)) throw UNSUPPORTED;
      return v >= 0 ? head(0, v) : head(1, -1 - v);
    case 'boolean':
      room(1);
      out[at++] = v ? 0xf5 : 0xf4;
      return;
    case 'object': {
      if (v === null) {
        room(1);
        out[at++] = 0xf6;
        return;
      }
      if (Array.isArray(v)) {
        head(4, v.length);
        for (let i = 0; i < v.length; i++) value(v[i]);
        return;
      }
      if (v instanceof Uint8Array) {
        head(2, v.length);
        room(v.length);
        out.set(v, at);
        at += v.length;
        return;
      }
      const prototype = Object.getPrototypeOf(v) as unknown;
      if (prototype !== Object.prototype && prototype !== null) throw UNSUPPORTED;
      const record = v as Record<string, unknown>;
      const keys = canonicalKeys(record);
      head(5, keys.length);
      for (const key of keys) {
        text(key);
        value(record[key]);
      }
      return;
    }
    default:
      throw UNSUPPORTED;
  }
}

export function encodeCanonical(v: unknown): Uint8Array {
  at = 0;
  try {
    value(v);
  } catch (error) {
    // Also a stack overflow (a cycle, or nesting too deep): cborg reports it in its own words.
    if (error === UNSUPPORTED || error instanceof RangeError) return cborgEncode(v);
    throw error;
  }
  return out.slice(0, at);
}

// --- decoding -------------------------------------------------------------------------------------

const utf8 = new TextDecoder();
const EMPTY = new Uint8Array(0);
let data: Uint8Array = EMPTY;
let pos = 0;
/** Byte strings as views of the input rather than copies (decodeCanonicalViews). */
let views = false;

/** A head's argument (minor 0-27); anything else is not for the fast path. */
function argument(minor: number): number {
  if (minor < 24) return minor;
  if (minor === 24) {
    if (pos + 1 > data.length) throw UNSUPPORTED;
    return data[pos++]!;
  }
  if (minor === 25) {
    if (pos + 2 > data.length) throw UNSUPPORTED;
    const n = (data[pos]! << 8) | data[pos + 1]!;
    pos += 2;
    return n;
  }
  if (minor === 26) {
    if (pos + 4 > data.length) throw UNSUPPORTED;
    const n = data[pos]! * 0x1000000 + ((data[pos + 1]! << 16) | (data[pos + 2]! << 8) | data[pos + 3]!);
    pos += 4;
    return n;
  }
  if (minor === 27) {
    if (pos + 8 > data.length) throw UNSUPPORTED;
    const high = data[pos]! * 0x1000000 + ((data[pos + 1]! << 16) | (data[pos + 2]! << 8) | data[pos + 3]!);
    // Beyond 2^53 - 1 cborg gives a bigint.
    if (high > 0x1fffff) throw UNSUPPORTED;
    const low = data[pos + 4]! * 0x1000000 + ((data[pos + 5]! << 16) | (data[pos + 6]! << 8) | data[pos + 7]!);
    pos += 8;
    return high * 0x100000000 + low;
  }
  throw UNSUPPORTED;
}

/** Short strings recur (map keys, kinds, statuses): kept by a hash of their bytes, checked on use. */
const shortStrings: (string | undefined)[] = new Array<string | undefined>(4096);
const SHORT = 24;

function textOf(length: number): string {
  const end = pos + length;
  if (end > data.length) throw UNSUPPORTED;
  let ascii = true;
  let h = length;
  for (let i = pos; i < end; i++) {
    const c = data[i]!;
    if (c > 0x7f) {
      ascii = false;
      break;
    }
    h = (h * 31 + c) | 0;
  }
  let s: string;
  if (!ascii) s = utf8.decode(data.subarray(pos, end));
  else if (length <= SHORT) {
    const slot = h & 4095;
    const known = shortStrings[slot];
    if (known !== undefined && known.length === length && sameAscii(known, pos)) s = known;
    else {
      s = '';
      for (let i = pos; i < end; i++) s += String.fromCharCode(data[i]!);
      shortStrings[slot] = s;
    }
  } else s = utf8.decode(data.subarray(pos, end));
  pos = end;
  return s;
}

function sameAscii(s: string, from: number): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== data[from + i]) return false;
  return true;
}

function item(): unknown {
  if (pos >= data.length) throw UNSUPPORTED;
  const initial = data[pos++]!;
  const minor = initial & 31;
  switch (initial >> 5) {
    case 0:
      return argument(minor);
    case 1: {
      const n = argument(minor);
      // cborg gives a bigint below the safe range.
      if (n > Number.MAX_SAFE_INTEGER - 1) throw UNSUPPORTED;
      return -1 - n;
    }
    case 2: {
      const n = argument(minor);
      if (pos + n > data.length) throw UNSUPPORTED;
      // A copy, as cborg gives: the value never shares memory with the input (unless views were asked for).
      const bytes = views ? data.subarray(pos, pos + n) : new Uint8Array(data.subarray(pos, pos + n));
      pos += n;
      return bytes;
    }
    case 3:
      return textOf(argument(minor));
    case 4: {
      const n = argument(minor);
      if (n > data.length - pos) throw UNSUPPORTED;
      const list = new Array<unknown>(n);
      for (let i = 0; i < n; i++) list[i] = item();
      return list;
    }
    case 5: {
      const n = argument(minor);
      if (n > data.length - pos) throw UNSUPPORTED;
      const record: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        if (pos >= data.length || data[pos]! >> 5 !== 3) throw UNSUPPORTED;
        const key = textOf(argument(data[pos++]! & 31));
        if (key === '__proto__') throw UNSUPPORTED;
        record[key] = item();
      }
      return record;
    }
    case 7:
      if (initial === 0xf4) return false;
      if (initial === 0xf5) return true;
      if (initial === 0xf6) return null;
      if (initial === 0xf7) return undefined;
      throw UNSUPPORTED;
    default:
      throw UNSUPPORTED;
  }
}

/**
 * As decodeCanonical, with every byte string a view of `bytes` instead of a copy: one allocation per
 * value fewer, for input the caller owns and never changes (a snapshot's chunk, decoded once whole).
 * Values outlive the call only as long as `bytes` is kept unchanged.
 */
export function decodeCanonicalViews(bytes: Uint8Array): unknown {
  views = true;
  try {
    return decodeCanonical(bytes);
  } finally {
    views = false;
  }
}

export function decodeCanonical(bytes: Uint8Array): unknown {
  data = bytes;
  pos = 0;
  try {
    const result = item();
    if (pos !== bytes.length) throw UNSUPPORTED;
    return result;
  } catch (error) {
    if (error === UNSUPPORTED || error instanceof RangeError) return cborgDecode(bytes, { useMaps: false });
    throw error;
  } finally {
    data = EMPTY;
  }
}
