import { decodeCanonical, decodeCanonicalViews, encodeCanonical } from './canonical-cbor.js';

/**
 * The one deterministic binary encoding of the chain: CBOR (RFC 8949) as produced by cborg's
 * defaults — shortest-form integers and lengths, map keys sorted length-first then bytewise,
 * no indefinite lengths, no floats in consensus data (amounts are bigint or decimal strings).
 * Two encoders that follow these rules produce the same bytes, so hashes and signatures match.
 * Common values take a direct path (canonical-cbor.ts); the rest goes through cborg itself.
 */
export function encode(value: unknown): Uint8Array {
  return encodeCanonical(value);
}

export function decode<T>(bytes: Uint8Array): T {
  return decodeCanonical(bytes) as T;
}

/** As decode, its byte strings views of `bytes` (no copies): for bytes the caller owns and never changes. */
export function decodeViews<T>(bytes: Uint8Array): T {
  return decodeCanonicalViews(bytes) as T;
}
