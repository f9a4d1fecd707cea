import { hash } from './hash.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
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

/**
 * The unchecked conversions between an account's two names, for addresses the node made or already
 * checked (its state, the EVM, its own records): no pattern test, no checksum, so hot paths can use
 * them. `accountAddress` and `toEthAddress` are for input.
 */
/** `svc1` + the hex of an account's 20 bytes. */
export function addressOfBytes(bytes: Uint8Array): Address {
  return `svc1${toHex(bytes).slice(2)}`;
}

/** `svc1` from `0x` + 40 hex characters (lowercased). */
export function addressOfHex(hex: string): Address {
  return `svc1${hex.slice(2).toLowerCase()}`;
}

/** `0x` + the 40 hex characters of a `svc1` address. */
export function hexOfAddress(address: string): EthAddress {
  return `0x${address.slice(4)}`;
}

/** Address of an Ed25519 public key: `svc1` + hex of the first 20 bytes of its SHA-256. */
export function addressFromPublicKey(publicKey: Uint8Array): Address {
  if (publicKey.length !== 32) throw new TypeError('an Ed25519 public key has 32 bytes');
  return `svc1${toHex(hash(publicKey).subarray(0, 20)).slice(2)}`;
}

/** An Ethereum-style account name: `0x` + 40 hex characters, the same 20 bytes as `svc1…`. */
export type EthAddress = `0x${string}`;

const ETH_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 checksummed form of 40 lowercase hex characters. */
function checksummed(lowerHex: string): string {
  const digest = toHex(keccak_256(new TextEncoder().encode(lowerHex))).slice(2);
  let out = '';
  for (let i = 0; i < 40; i++) out += parseInt(digest[i]!, 16) >= 8 ? lowerHex[i]!.toUpperCase() : lowerHex[i]!;
  return out;
}

/**
 * True for `0x` + 40 hex characters whose case is all lower, all upper, or the EIP-55 checksum (a
 * mixed-case address with a wrong checksum is a typo, refused as Ethereum tools refuse it).
 */
export function isValidEthAddress(value: unknown): value is EthAddress {
  if (typeof value !== 'string' || !ETH_ADDRESS.test(value)) return false;
  const body = value.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return checksummed(body.toLowerCase()) === body;
}

/** `svc1…` or `0x…` (EIP-55 checked) as the canonical `svc1` form; throws a TypeError otherwise. */
export function accountAddress(value: string): Address {
  if (isValidAddress(value)) return value.toLowerCase() as Address;
  if (isValidEthAddress(value)) return `svc1${value.slice(2).toLowerCase()}`;
  throw new TypeError(`invalid address: ${String(value).slice(0, 80)}`);
}

/** The `0x` name of an account (lowercase; `checksum` gives the EIP-55 form). */
export function toEthAddress(address: string, checksum = false): EthAddress {
  const lower = accountAddress(address).slice(4);
  return `0x${checksum ? checksummed(lower) : lower}`;
}

/** Address of a secp256k1 public key (64 bytes, uncompressed without its 0x04 prefix): the last 20 bytes of its Keccak-256, as Ethereum derives it. */
export function addressFromEthPublicKey(publicKey: Uint8Array): Address {
  if (publicKey.length !== 64) throw new TypeError('an uncompressed secp256k1 public key has 64 bytes');
  return `svc1${toHex(keccak_256(publicKey).subarray(12)).slice(2)}`;
}
