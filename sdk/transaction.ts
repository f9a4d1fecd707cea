import { addressFromPublicKey, normalizeAddress, type Address } from './address.js';
import { equalBytes, fromHex, toHex, type Hex } from './bytes.js';
import { decode, encode } from './encoding.js';
import { hash } from './hash.js';
import { signWith, type KeyPair } from './keys.js';
import { ASSETS, type Asset } from './amount.js';

/** Payloads hold only CBOR-friendly values: strings, small integers, booleans, byte strings, arrays and maps. */
/** The most gas one EVM transaction or call may have: 2^24 (EIP-7825). */
export const MAX_TRANSACTION_GAS = 16_777_216;

export type Payload = { readonly [key: string]: PayloadValue };
export type PayloadValue = string | number | boolean | null | Uint8Array | readonly PayloadValue[] | Payload;

export interface UnsignedTransaction {
  readonly chainId: string;
  /** `transfer`, or a kind a plugin registers (`faucet.mint`, ...). */
  readonly kind: string;
  readonly publicKey: Hex;
  readonly nonce: number;
  readonly payload: Payload;
}

export interface SignedTransaction extends UnsignedTransaction {
  readonly from: Address;
  readonly signature: Hex;
  readonly hash: Hex;
}

const TX_VERSION = 1;

/**
 * Signing bytes: CBOR array [version, chainId, kind, publicKey(32 bytes), nonce, payload]. The payload
 * is a CBOR map, whose keys cborg sorts deterministically. Amounts are decimal strings of base units
 * (CBOR integers stop at 64 bits; balances don't).
 */
export function encodeUnsigned(tx: UnsignedTransaction): Uint8Array {
  return signingBytes(tx.chainId, tx.kind, fromHex(tx.publicKey), tx.nonce, tx.payload);
}

/** The signing bytes' one layout, from the key's bytes (a decoder has them; a signer has the hex). */
function signingBytes(
  chainId: string,
  kind: string,
  publicKey: Uint8Array,
  nonce: number,
  payload: Payload,
): Uint8Array {
  return encode([TX_VERSION, chainId, kind, publicKey, nonce, payload]);
}

/** The raw form sent to `svc_sendRawTransaction`: CBOR array [signingBytes, signature(64 bytes)], as 0x hex. */
export function encodeSigned(tx: SignedTransaction): Uint8Array {
  return encode([encodeUnsigned(tx), fromHex(tx.signature)]);
}

/** Transaction hash: SHA-256 of the signing bytes (the signature is not part of a transaction's identity). */
export function transactionHash(tx: UnsignedTransaction): Hex {
  return toHex(hash(encodeUnsigned(tx)));
}

/** Transactions `signTransaction` made in this process: signed with the key itself, right by construction. */
/** What each transaction signed in this process was signed as: its signature, key and hash. */
const signedHere = new WeakMap<
  SignedTransaction,
  { signature: string; publicKey: string; from: string; hash: string }
>();

export function signTransaction(tx: Omit<UnsignedTransaction, 'publicKey'>, key: KeyPair): SignedTransaction {
  // Object.assign, not a spread followed by fields: on Node 20 (V8 11) that made new hidden classes per transaction.
  const unsigned: UnsignedTransaction = Object.assign({}, tx, { publicKey: toHex(key.publicKey) });
  const bytes = encodeUnsigned(unsigned);
  const digest = hash(bytes);
  // Frozen (its fields can't be reassigned), and remembered as signed: a node trusts it without
  // verifying the signature only while it still is exactly what was signed.
  const signed: SignedTransaction = Object.freeze(
    Object.assign({}, unsigned, {
      payload: deepFreeze(structuredClone(unsigned.payload)),
      from: key.address,
      signature: toHex(signWith(key, digest)),
      hash: toHex(digest),
    }),
  );
  signedHere.set(signed, {
    signature: signed.signature,
    publicKey: signed.publicKey,
    from: signed.from,
    hash: signed.hash,
  });
  return signed;
}

/**
 * Whether this very object came from `signTransaction` in this process: a node need not verify the
 * signature of what it signed itself (a provider's reports, a faucet grant: one verification each).
 */
export function signedInThisProcess(tx: SignedTransaction): boolean {
  const signed = signedHere.get(tx);
  if (
    !signed ||
    signed.signature !== tx.signature ||
    signed.publicKey !== tx.publicKey ||
    signed.from !== tx.from ||
    signed.hash !== tx.hash
  )
    return false;
  // Byte arrays in a payload can't be frozen: what they hold now must still hash to what was signed.
  return toHex(hash(encodeUnsigned(tx))) === signed.hash;
}

/** Freezes plain objects and arrays all the way down (byte arrays can't be frozen; `signedInThisProcess` re-hashes for them). */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  for (const inner of Object.values(value as object)) deepFreeze(inner);
  return Object.freeze(value);
}

export function rawTransaction(tx: SignedTransaction): Hex {
  return toHex(encodeSigned(tx));
}

export class TransactionFormatError extends Error {
  override name = 'TransactionFormatError';
}

/** Decodes raw bytes back to a transaction; checks the shape only (signatures are the node's job). */
export function decodeTransaction(raw: Uint8Array): SignedTransaction {
  return decodeTransactionParts(raw).tx;
}

/** A decoded transaction with the bytes its signature is checked over, as they arrived. */
export interface DecodedParts {
  readonly tx: SignedTransaction;
  readonly signature: Uint8Array;
  readonly digest: Uint8Array;
  readonly publicKey: Uint8Array;
}

/**
 * `decodeTransaction`, also giving the signature, the hash and the key as bytes: a verifier takes
 * them as they are rather than parsing the transaction's hex back.
 */
export function decodeTransactionParts(raw: Uint8Array): DecodedParts {
  let outer: unknown;
  try {
    outer = decode<unknown>(raw);
  } catch (error) {
    throw new TransactionFormatError(`not CBOR: ${(error as Error).message}`);
  }
  if (
    !Array.isArray(outer) ||
    outer.length !== 2 ||
    !(outer[0] instanceof Uint8Array) ||
    !(outer[1] instanceof Uint8Array)
  ) {
    throw new TransactionFormatError('expected [signingBytes, signature]');
  }
  const [bytes, signature] = outer as [Uint8Array, Uint8Array];
  if (signature.length !== 64) throw new TransactionFormatError('signature must be 64 bytes');
  let body: unknown;
  try {
    body = decode<unknown>(bytes);
  } catch (error) {
    throw new TransactionFormatError(`signing bytes are not CBOR: ${(error as Error).message}`);
  }
  if (!Array.isArray(body) || body.length !== 6)
    throw new TransactionFormatError('expected [version, chainId, kind, publicKey, nonce, payload]');
  const [version, chainId, kind, publicKey, nonce, payload] = body as unknown[];
  if (version !== TX_VERSION) throw new TransactionFormatError(`unknown transaction version ${String(version)}`);
  if (
    typeof chainId !== 'string' ||
    typeof kind !== 'string' ||
    !(publicKey instanceof Uint8Array) ||
    publicKey.length !== 32
  ) {
    throw new TransactionFormatError('bad chainId, kind or public key');
  }
  if (!Number.isSafeInteger(nonce) || (nonce as number) < 0)
    throw new TransactionFormatError('nonce must be a non-negative integer');
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || payload instanceof Uint8Array)
    throw new TransactionFormatError('payload must be a map');
  // Re-encoding must give the same bytes: a non-canonical encoding would let one transaction have two hashes.
  if (!equalBytes(signingBytes(chainId, kind, publicKey, nonce as number, payload as Payload), bytes))
    throw new TransactionFormatError('signing bytes are not in canonical encoding');
  const digest = hash(bytes);
  const tx: SignedTransaction = {
    chainId,
    kind,
    publicKey: toHex(publicKey),
    nonce: nonce as number,
    payload: payload as Payload,
    from: addressFromPublicKey(publicKey),
    signature: toHex(signature),
    hash: toHex(digest),
  };
  return { tx, signature, digest, publicKey };
}

/** The core transfer: `amount` base units of `asset` to `to`. */
export interface TransferPayload {
  readonly to: Address;
  readonly asset: Asset;
  readonly amount: string;
}

export function transferPayload(to: string, asset: Asset, amount: bigint): Payload {
  if (!ASSETS.includes(asset)) throw new RangeError(`asset must be one of ${ASSETS.join(', ')}`);
  if (amount <= 0n) throw new RangeError('a transfer moves a positive amount');
  return { to: normalizeAddress(to), asset, amount: amount.toString() };
}
