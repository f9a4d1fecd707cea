import { createPublicKey, verify, type KeyObject } from 'node:crypto';

// DER SubjectPublicKeyInfo header of an Ed25519 key; the 32 raw key bytes follow.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const MAX_CACHED = 50_000;
const keys = new Map<string, KeyObject>();
/** Signatures `verifyRemembered` verified lately, by signature, key and message. */
const MAX_VERIFIED = 4096;
const verified = new Set<string>();

/**
 * Ed25519 verification with node:crypto. Importing a key costs about as much as verifying, so key
 * objects are cached (bounded; the oldest go first). Accepts exactly what the SDK's @noble signer produces.
 */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const id = Buffer.from(publicKey).toString('latin1');
  let key = keys.get(id);
  if (!key) {
    try {
      key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    } catch {
      return false;
    }
    if (keys.size >= MAX_CACHED) keys.delete(keys.keys().next().value!);
    keys.set(id, key);
  }
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/**
 * `verifyEd25519` for signatures that come again: a block's header is checked when it is gossiped
 * and again when it is imported, a precommit when it arrives and again in the certificate the next
 * block carries. A few microseconds to look up against a tenth of a millisecond to verify; a
 * transaction's signature, checked once, goes to `verifyEd25519` itself.
 */
export function verifyRemembered(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  const triple = `${Buffer.from(signature).toString('latin1')}${Buffer.from(publicKey).toString('latin1')}${Buffer.from(message).toString('latin1')}`;
  if (verified.has(triple)) return true;
  const valid = verifyEd25519(signature, message, publicKey);
  if (valid) {
    if (verified.size >= MAX_VERIFIED) verified.delete(verified.values().next().value!);
    verified.add(triple);
  }
  return valid;
}
