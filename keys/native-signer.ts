import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { KeyPair } from '../sdk/keys.js';

/** PKCS#8 DER of an Ed25519 private key up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The key with a node:crypto signer: the node signs every block and every report of its own with it,
 * and pure-JS Ed25519 took about a millisecond a signature on a busy machine.
 */
export function withNativeSigner(key: KeyPair): KeyPair {
  if (key.sign) return key;
  let keyObject: KeyObject | undefined;
  return {
    ...key,
    sign: (message) => {
      keyObject ??= createPrivateKey({
        key: Buffer.concat([PKCS8_ED25519_PREFIX, key.secretKey]),
        format: 'der',
        type: 'pkcs8',
      });
      return new Uint8Array(sign(null, message, keyObject));
    },
  };
}
