import {
  decodeTransaction,
  decodeTransactionParts,
  TransactionFormatError,
  type DecodedParts,
  type SignedTransaction,
} from '../sdk/transaction.js';
import {
  decodeEthereumEnvelope,
  EnvelopeError,
  isEthereumEnvelope,
  type EnvelopeContext,
} from './ethereum-envelope.js';
import { verifyEd25519 } from './signatures.js';

/** What decoding one raw transaction gives: the transaction with its signature checked, or why not. */
export type DecodeResult =
  | { readonly tx: SignedTransaction }
  | { readonly format: string }
  | { readonly badSignature: true; readonly hash: string; readonly reason?: string }
  | { readonly wrongChain: string };

export interface DecodeJob {
  readonly id: number;
  readonly raws: readonly Uint8Array[];
}

/**
 * Decodes (shape and canonical encoding) and verifies the signature, of either envelope: the
 * native one (CBOR, Ed25519) or an Ethereum transaction (RLP, secp256k1, sender recovered). The
 * same on a worker and inline.
 */
export function decodeVerified(raw: Uint8Array, context: EnvelopeContext): DecodeResult {
  if (isEthereumEnvelope(raw)) {
    try {
      return { tx: decodeEthereumEnvelope(raw, context) };
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      if (error.kind === 'invalid_signature') return { badSignature: true, hash: '', reason: error.message };
      if (error.kind === 'wrong_chain_id') return { wrongChain: error.message };
      return { format: error.message };
    }
  }
  let parts: DecodedParts;
  try {
    parts = decodeTransactionParts(raw);
  } catch (error) {
    if (error instanceof TransactionFormatError) return { format: error.message };
    throw error;
  }
  return verifyEd25519(parts.signature, parts.digest, parts.publicKey)
    ? { tx: parts.tx }
    : { badSignature: true, hash: parts.tx.hash };
}

/**
 * A stored or already-admitted transaction's bytes back to the transaction, of either envelope
 * (its signature was checked when it was admitted; an Ethereum one's sender is recovered again).
 */
export function decodeStored(raw: Uint8Array, context: EnvelopeContext): SignedTransaction {
  return isEthereumEnvelope(raw) ? decodeEthereumEnvelope(raw, context) : decodeTransaction(raw);
}
