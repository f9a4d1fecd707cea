import { sha256 } from '@noble/hashes/sha2.js';
import { toHex } from './bytes.js';

/** An account address: `svc1` + 40 lowercase hex characters (20 bytes). */
export type Address = `svc1${string}`;

export const ADDRESS_PREFIX = 'svc1';
const ADDRESS_PATTERN_TEXT = '^svc1[0-9a-fA-F]{40}$';
const ADDRESS_PATTERN = new RegExp(ADDRESS_PATTERN_TEXT);

/** The JSON-schema pattern addresses must match (shared by the node's RPC schemas). */
export const addressPattern = ADDRESS_PATTERN_TEXT;
/** The pattern of an address as the node writes it: lowercase hex. */
export const canonicalAddressPattern = '^svc1[0-9a-f]{40}$';

/** True for `svc1` + 40 hex characters. The prefix is lowercase only; the hex part is case-insensitive. */
export function isValidAddress(value: unknown): value is Address {
  return typeof value === 'string' && ADDRESS_PATTERN.test(value);
}

/** Returns the canonical (lowercase) form; throws a TypeError on an invalid address. */
export function normalizeAddress(value: string): Address {
  if (!isValidAddress(value)) throw new TypeError(`invalid address: ${String(value).slice(0, 80)}`);
  return value.toLowerCase() as Address;
}

/** Address of an Ed25519 public key: `svc1` + hex of the first 20 bytes of its SHA-256. */
export function addressFromPublicKey(publicKey: Uint8Array): Address {
  if (publicKey.length !== 32) throw new TypeError('an Ed25519 public key has 32 bytes');
  return `svc1${toHex(sha256(publicKey).subarray(0, 20)).slice(2)}`;
}
