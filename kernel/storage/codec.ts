import { fromHex, toHex, utf8 } from '../../sdk/bytes.js';
import { decode, encode } from '../../sdk/encoding.js';
import { readU64Key, u64Key } from './keys.js';

/**
 * One side (key or value) of a namespace's entries: its byte layout in words, as `svc-node plugins`
 * lists it, and the conversion both ways. A layout's description is built from its two codecs, so
 * what the docs say is what the code writes.
 */
export interface Codec<T> {
  readonly layout: string;
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

const text = new TextDecoder();

/** Fixed-width big-endian u64, so numeric keys sort in numeric order. */
export const u64 = (what: string): Codec<number> => ({
  layout: `u64 ${what}`,
  encode: (value) => u64Key(value),
  decode: (bytes) => Number(readU64Key(bytes)),
});

/** A 32-byte hash, 0x hex in code. */
export const hash32 = (what: string): Codec<string> => ({
  layout: `32-byte ${what}`,
  encode: (hash) => fromHex(hash),
  decode: (bytes) => toHex(bytes),
});

export const utf8Text = (what: string): Codec<string> => ({
  layout: `utf8 ${what}`,
  encode: (value) => utf8(value),
  decode: (bytes) => text.decode(bytes),
});

export const cbor = <T>(what: string): Codec<T> => ({
  layout: `CBOR ${what}`,
  encode: (value) => encode(value),
  decode: (bytes) => decode<T>(bytes),
});

export const json = <T>(what: string): Codec<T> => ({
  layout: `JSON ${what}`,
  encode: (value) => utf8(JSON.stringify(value)),
  decode: (bytes) => JSON.parse(text.decode(bytes)) as T,
});

/** Bytes stored as they are; `what` says what they hold. */
export const raw = (what: string): Codec<Uint8Array> => ({
  layout: what,
  encode: (bytes) => bytes,
  decode: (bytes) => bytes,
});
