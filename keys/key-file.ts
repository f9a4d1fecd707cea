import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { fromHex, toHex } from '../sdk/bytes.js';
import { keyPairFromSecret, type KeyPair } from '../sdk/keys.js';
import { withNativeSigner } from './native-signer.js';

/** scrypt cost: ~100 ms and 32 MiB per key on this class of machine; keys are opened once at start. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1 } as const;

/**
 * An account key on disk (JSON, mode 0600). Plain: `secretKey` in hex. With a passphrase: `crypto`
 * holds the secret sealed with AES-256-GCM under a key derived from the passphrase by scrypt.
 */
export interface KeyFile {
  readonly address: string;
  readonly publicKey: string;
  readonly secretKey?: string;
  readonly crypto?: {
    readonly kdf: 'scrypt';
    readonly salt: string;
    readonly N: number;
    readonly r: number;
    readonly p: number;
    readonly cipher: 'aes-256-gcm';
    readonly iv: string;
    readonly tag: string;
    readonly ciphertext: string;
  };
}

export class KeyFileError extends Error {
  override name = 'KeyFileError';
}

function derive(passphrase: string, salt: Buffer, params: { N: number; r: number; p: number }): Buffer {
  return scryptSync(passphrase, salt, 32, { ...params, maxmem: 256 * params.N * params.r });
}

/** The file form of a key: sealed when a passphrase is given, else plain. */
export function sealKey(key: KeyPair, passphrase: string | undefined): KeyFile {
  const base = { address: key.address, publicKey: toHex(key.publicKey) };
  if (passphrase === undefined) return { ...base, secretKey: toHex(key.secretKey) };
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derive(passphrase, salt, SCRYPT), iv);
  const ciphertext = Buffer.concat([cipher.update(key.secretKey), cipher.final()]);
  return {
    ...base,
    crypto: {
      kdf: 'scrypt',
      salt: toHex(salt),
      ...SCRYPT,
      cipher: 'aes-256-gcm',
      iv: toHex(iv),
      tag: toHex(cipher.getAuthTag()),
      ciphertext: toHex(ciphertext),
    },
  };
}

/** Opens a key file; `where` names it in errors (a wrong passphrase, a missing one, a damaged file). */
export function openKey(file: KeyFile, passphrase: string | undefined, where: string): KeyPair {
  let secret: Uint8Array;
  if (file.crypto) {
    if (passphrase === undefined)
      throw new KeyFileError(`${where} is encrypted: give its passphrase (SVC_KEY_PASSPHRASE or --passphrase-file)`);
    const { salt, N, r, p, iv, tag, ciphertext } = file.crypto;
    try {
      const decipher = createDecipheriv(
        'aes-256-gcm',
        derive(passphrase, Buffer.from(fromHex(salt)), { N, r, p }),
        fromHex(iv),
      );
      decipher.setAuthTag(fromHex(tag));
      secret = Buffer.concat([decipher.update(fromHex(ciphertext)), decipher.final()]);
    } catch {
      throw new KeyFileError(`${where}: wrong passphrase, or the file is damaged`);
    }
  } else if (typeof file.secretKey === 'string') {
    secret = fromHex(file.secretKey);
  } else {
    throw new KeyFileError(`${where}: holds neither "secretKey" nor "crypto"`);
  }
  const key = withNativeSigner(keyPairFromSecret(secret));
  if (key.address !== file.address)
    throw new KeyFileError(`${where}: the key does not belong to address ${file.address}`);
  return key;
}
