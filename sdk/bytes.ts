import { bytesToHex as nobleBytesToHex, hexToBytes as nobleHexToBytes } from '@noble/hashes/utils.js';

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

/** Parses `0x`-prefixed (or bare) hex; throws on odd length or a non-hex character. */
export function fromHex(hex: string): Uint8Array {
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (NodeBuffer && body.length % 2 === 0) {
    // Node's decoder stops at the first pair that is not hex: all of it decoded means all of it was hex.
    const decoded = NodeBuffer.from(body, 'hex');
    if (decoded.length * 2 === body.length)
      // A copy: a short Buffer is a view into a shared pool, which a caller may keep or send to a thread.
      return new Uint8Array(decoded);
  }
  if (body.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(body))
    throw new TypeError(`not a hex string: ${hex.slice(0, 80)}`);
  return nobleHexToBytes(body);
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
