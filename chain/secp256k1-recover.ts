import { createRequire } from 'node:module';

interface Secp256k1Native {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
}

/**
 * libsecp256k1 through the `secp256k1` package's prebuilt N-API binary (shipped in the npm package,
 * no build), undefined where it does not load: recovering a sender there takes ~40 µs against ~1.6 ms
 * in JavaScript, which is what an Ethereum transaction's admission costs.
 */
const native: Secp256k1Native | undefined = (() => {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings') as Secp256k1Native;
  } catch {
    return undefined;
  }
})();

export const nativeRecovery = native !== undefined;

/**
 * The 64-byte public key (uncompressed, without its 0x04 prefix) that signed `message` with (r, s,
 * recovery id), or undefined when none does; `fallback` recovers it in JavaScript where the native
 * library is missing.
 */
export function recoverPublicKey(
  message: Uint8Array,
  r: bigint,
  s: bigint,
  recid: number,
  fallback: () => Uint8Array,
): Uint8Array | undefined {
  if (!native) return fallback();
  if (recid !== 0 && recid !== 1) return undefined;
  const signature = new Uint8Array(64);
  signature.set(word(r), 0);
  signature.set(word(s), 32);
  try {
    return native.ecdsaRecover(signature, recid, message, false).subarray(1);
  } catch {
    return undefined;
  }
}

function word(value: bigint): Uint8Array {
  return Buffer.from(value.toString(16).padStart(64, '0').slice(-64), 'hex');
}
