import { decode as cborDecode, encode as cborEncode } from 'cborg';

/**
 * The one deterministic binary encoding of the chain: CBOR (RFC 8949) as produced by cborg's
 * defaults — shortest-form integers and lengths, map keys sorted length-first then bytewise,
 * no indefinite lengths, no floats in consensus data (amounts are bigint or decimal strings).
 * Two encoders that follow these rules produce the same bytes, so hashes and signatures match.
 */
export function encode(value: unknown): Uint8Array {
  return cborEncode(value);
}

export function decode<T>(bytes: Uint8Array): T {
  return cborDecode(bytes, { useMaps: false }) as T;
}
