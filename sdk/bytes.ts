import { bytesToHex as nobleBytesToHex } from '@noble/hashes/utils.js';

/** Lowercase `0x`-prefixed hex, the wire form of hashes, keys and signatures. */
export type Hex = `0x${string}`;

/** Node's Buffer where there is one: its native hex is several times faster, one string and no garbage per byte. */
const NodeBuffer = (
  globalThis as {
    Buffer?: {
      from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'hex'): string };
      from(text: string, encoding: 'hex'): Uint8Array;
    };
  }
).Buffer;

export function toHex(bytes: Uint8Array): Hex {
  return `0x${NodeBuffer ? NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') : nobleBytesToHex(bytes)}`;
}

/** Each ASCII character's hex digit value, -1 for a character that is not one. */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEX_DIGIT[48 + c] = c;
for (let c = 0; c < 6; c++) {
  HEX_DIGIT[65 + c] = 10 + c;
  HEX_DIGIT[97 + c] = 10 + c;
}
/** Up to this many bytes a loop here beats Node's native decoder, which allocates twice (a pooled Buffer, then the copy). */
const SHORT_HEX_BYTES = 128;

/** Parses `0x`-prefixed (or bare) hex; throws on odd length or a non-hex character. */
export function fromHex(hex: string): Uint8Array {
  const from = hex.charCodeAt(0) === 48 && (hex.charCodeAt(1) | 0x20) === 120 ? 2 : 0;
  const length = hex.length - from;
  if (length % 2 === 0) {
    if (length <= SHORT_HEX_BYTES * 2 || !NodeBuffer) {
      const out = new Uint8Array(length / 2);
      for (let i = 0, at = from; i < out.length; i++, at += 2) {
        const high = hex.charCodeAt(at);
        const low = hex.charCodeAt(at + 1);
        // A -1 digit makes the pair negative: high's sign survives the shift, low's -1 the or.
        const digits = high < 128 && low < 128 ? (HEX_DIGIT[high]! << 4) | HEX_DIGIT[low]! : -1;
        if (digits < 0) throw notHex(hex);
        out[i] = digits;
      }
      return out;
    }
    // Node's decoder stops at the first pair that is not hex: all of it decoded means all of it was hex.
    const decoded = NodeBuffer.from(from === 0 ? hex : hex.slice(from), 'hex');
    // A copy: a short Buffer is a view into a shared pool, which a caller may keep or send to a thread.
    if (decoded.length * 2 === length) return new Uint8Array(decoded);
  }
  throw notHex(hex);
}

function notHex(hex: string): TypeError {
  return new TypeError(`not a hex string: ${hex.slice(0, 80)}`);
}

export function isHex(value: unknown, byteLength?: number): value is Hex {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) return false;
  return byteLength === undefined || value.length === 2 + byteLength * 2;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
