import { describe, expect, it } from 'vitest';
import { generateKeyPair, sign, signWith, verify } from '../../sdk/keys.js';
import { withNativeSigner } from '../../keys/native-signer.js';

describe('native signer', () => {
  it('gives the same Ed25519 signature as the pure-JS signer, one the SDK verifies', () => {
    for (let i = 0; i < 20; i++) {
      const key = generateKeyPair();
      const message = crypto.getRandomValues(new Uint8Array(i * 7));
      const native = signWith(withNativeSigner(key), message);
      expect(native).toEqual(sign(message, key.secretKey));
      expect(verify(native, message, key.publicKey)).toBe(true);
    }
  });

  it('keeps the key pair as it was (address, public key) and wraps once', () => {
    const key = generateKeyPair();
    const native = withNativeSigner(key);
    expect(native.address).toBe(key.address);
    expect(native.publicKey).toEqual(key.publicKey);
    expect(withNativeSigner(native)).toBe(native);
  });
});
