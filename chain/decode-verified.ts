import { fromHex } from '../sdk/bytes.js';
import { decodeTransaction, TransactionFormatError, type SignedTransaction } from '../sdk/transaction.js';
import { verifyEd25519 } from './signatures.js';

/** What decoding one raw transaction gives: the transaction with its signature checked, or why not. */
export type DecodeResult = { readonly tx: SignedTransaction } | { readonly format: string } | { readonly badSignature: true; readonly hash: string };

export interface DecodeJob {
  readonly id: number;
  readonly raws: readonly Uint8Array[];
}

/** Decodes (shape and canonical encoding) and verifies the signature; the same on a worker and inline. */
export function decodeVerified(raw: Uint8Array): DecodeResult {
  let tx: SignedTransaction;
  try {
    tx = decodeTransaction(raw);
  } catch (error) {
    if (error instanceof TransactionFormatError) return { format: error.message };
    throw error;
  }
  return verifyEd25519(fromHex(tx.signature), fromHex(tx.hash), fromHex(tx.publicKey)) ? { tx } : { badSignature: true, hash: tx.hash };
}
