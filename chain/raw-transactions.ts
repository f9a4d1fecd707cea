import { createHash } from 'node:crypto';
import { encodeSigned, type SignedTransaction } from '../sdk/transaction.js';
import { ETHEREUM_KIND, type EthereumPayload } from './ethereum-envelope.js';

// The bytes a transaction arrived as, so committing a block stores them instead of encoding again.
const raws = new WeakMap<SignedTransaction, Uint8Array>();

export function rememberRaw(tx: SignedTransaction, raw: Uint8Array): void {
  raws.set(tx, raw);
}

/**
 * The transaction's canonical encoding (decoding checked that what arrived is canonical); an
 * Ethereum envelope's are its own bytes, which its payload carries.
 */
export function rawOf(tx: SignedTransaction): Uint8Array {
  return raws.get(tx) ?? (tx.kind === ETHEREUM_KIND ? (tx.payload as EthereumPayload).rlp : encodeSigned(tx));
}

/** A short digest of raw bytes, to recognise the same bytes again for a fraction of decoding and verifying them. */
export function rawDigest(raw: Uint8Array): string {
  return createHash('sha256').update(raw).digest('base64');
}
