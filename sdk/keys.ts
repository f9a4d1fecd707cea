import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { addressFromPublicKey, type Address } from './address.js';
import { concatBytes, utf8 } from './bytes.js';

/** An Ed25519 key pair. `secretKey` is the 32-byte seed of RFC 8032. */
export interface KeyPair {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly address: Address;
  /**
   * Signs with a native implementation when the key has one (the node gives its keys node:crypto,
   * some twenty times faster than pure JS); `signWith` falls back to pure-JS Ed25519. Both give the
   * same signature: Ed25519 signing is deterministic.
   */
  readonly sign?: (message: Uint8Array) => Uint8Array;
}

export function signWith(key: KeyPair, message: Uint8Array): Uint8Array {
  return key.sign ? key.sign(message) : sign(message, key.secretKey);
}

export function keyPairFromSecret(secretKey: Uint8Array): KeyPair {
  if (secretKey.length !== 32) throw new TypeError('an Ed25519 secret key has 32 bytes');
  const publicKey = ed25519.getPublicKey(secretKey);
  return { secretKey: Uint8Array.from(secretKey), publicKey, address: addressFromPublicKey(publicKey) };
}

export function generateKeyPair(): KeyPair {
  return keyPairFromSecret(ed25519.utils.randomSecretKey());
}

export function sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return ed25519.sign(message, secretKey);
}

/** Pure-JS verification (browsers); the node verifies with node:crypto, which accepts the same signatures. */
export function verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/**
 * The published devnet seed. Like other dev chains' well-known test accounts, every key derived
 * from it is public: never hold value with these keys.
 */
export const DEVNET_SEED = 'svc devnet: public test seed, never use for value';

/** How many devnet `account` keys the devnet's genesis funds (keys 0..9): what `--dev-account` may pick. */
export const DEVNET_ACCOUNTS = 10;

/** Deterministic devnet key `index` of `purpose`: SHA-256(seed || 0x00 || purpose || 0x00 || index). */
export function devnetKey(purpose: 'validator' | 'validator-peer' | 'account' | 'faucet', index: number): KeyPair {
  if (!Number.isInteger(index) || index < 0) throw new RangeError('devnet key index must be a non-negative integer');
  const secret = sha256(
    concatBytes(utf8(DEVNET_SEED), new Uint8Array([0]), utf8(purpose), new Uint8Array([0]), utf8(String(index))),
  );
  return keyPairFromSecret(secret);
}
