import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Address } from '../sdk/address.js';
import { toHex } from '../sdk/bytes.js';
import { decode, encode } from '../sdk/encoding.js';
import type { Log } from './receipts.js';
import type { SignedTransaction } from '../sdk/transaction.js';

/**
 * System transactions: what the chain itself does to contracts in a block's end step (a compute
 * job's callback) made visible as transactions, as OP Stack's deposit transactions and Arbitrum's
 * internal ones are. Each comes after the block's user transactions, in the order the end step made
 * them, with a receipt (status, gas, logs) in the block's receipt root, so every tool that reads
 * receipts and logs sees what the call did. No one signs them: every node makes the same ones when it
 * executes the block, and the receipt root checks they agree.
 *
 * From this rules version on; a block of an earlier version makes the same calls with no receipt.
 */
export const SYSTEM_TRANSACTIONS_SINCE = 7;

/** The Ethereum transaction type `eth_` views give a system transaction (EIP-2718's range; not a type any wallet signs). */
export const SYSTEM_TX_TYPE = 0x7d;

/** The receipt kind of a callback the chain makes to a contract. */
export const CALLBACK_KIND = 'evm.callback';

/** A call the chain makes in a block's end step. */
export interface SystemCall {
  /** The receipt kind (`evm.callback`). */
  readonly kind: string;
  /** What it answers, named by its owner: `oon.job 0x<job id>`. With the block's height, it makes the hash. */
  readonly origin: string;
  /** Who calls: the precompile's account. */
  readonly from: Address;
  readonly to: Address;
  readonly data: Uint8Array;
  readonly gasLimit: bigint;
}

/** A system call as a block holds it: its stored bytes and hash. */
export interface SystemTransaction extends SystemCall {
  readonly height: number;
  readonly hash: string;
  readonly raw: Uint8Array;
}

/** What a system call did, for its receipt. */
export interface SystemOutcome {
  readonly status: 'success' | 'failed';
  readonly gasUsed: number;
  readonly logs: readonly Log[];
  readonly error?: { readonly name: string; readonly reason: string };
}

/**
 * The stored bytes: the type byte, then CBOR `[kind, origin, height, from, to, data, gasLimit]`. The
 * hash is their Keccak-256, as an Ethereum typed transaction's: derived from what it answers and the
 * block, so the same job called back in another block (or on another network) has another hash.
 */
export function systemTransaction(call: SystemCall, height: number): SystemTransaction {
  const body = encode([call.kind, call.origin, height, call.from, call.to, call.data, call.gasLimit.toString()]);
  const raw = new Uint8Array(body.length + 1);
  raw[0] = SYSTEM_TX_TYPE;
  raw.set(body, 1);
  return { ...call, height, raw, hash: toHex(keccak_256(raw)) };
}

/** Whether stored transaction bytes are a system transaction's. */
export const isSystemRaw = (raw: Uint8Array): boolean => raw[0] === SYSTEM_TX_TYPE;

/** A system transaction from its stored bytes. */
export function decodeSystemTransaction(raw: Uint8Array): SystemTransaction {
  if (!isSystemRaw(raw)) throw new Error('not a system transaction');
  const [kind, origin, height, from, to, data, gasLimit] = decode<
    [string, string, number, Address, Address, Uint8Array, string]
  >(raw.subarray(1));
  return { kind, origin, height, from, to, data, gasLimit: BigInt(gasLimit), raw, hash: toHex(keccak_256(raw)) };
}

/**
 * A system transaction in the shape the `svc_` views give every transaction: unsigned (no key, no
 * signature, nonce 0), its call as the payload.
 */
export function systemAsSigned(tx: SystemTransaction, chainId: string): SignedTransaction {
  return {
    hash: tx.hash as SignedTransaction['hash'],
    from: tx.from,
    chainId,
    kind: tx.kind,
    publicKey: '0x',
    nonce: 0,
    signature: '0x',
    payload: { origin: tx.origin, to: tx.to, data: tx.data, gasLimit: tx.gasLimit.toString() },
  };
}
