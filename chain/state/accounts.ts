import type { Address } from '../../sdk/address.js';
import type { Asset } from '../../sdk/amount.js';
import { decode, encode } from '../../sdk/encoding.js';

/**
 * An account: two assets in base units, a transaction nonce, and OGT bonded per purpose (e.g. `compute`).
 * The nonce is a bigint: Ethereum's nonces run to 2^64 − 1 (EIP-2681), past what a number holds exactly.
 */
export interface Account {
  omc: bigint;
  ogt: bigint;
  nonce: bigint;
  bonded: Record<string, bigint>;
}

export function accountKey(address: Address): string {
  return `accounts/${address}`;
}

export function assetField(asset: Asset): 'omc' | 'ogt' {
  return asset === 'OMC' ? 'omc' : 'ogt';
}

interface StoredAccount {
  omc: string;
  ogt: string;
  // A CBOR integer either way: the same bytes for a number and a bigint of the same value.
  nonce: number | bigint;
  bonded?: Record<string, string>;
}

const MAX_SAFE_NONCE = BigInt(Number.MAX_SAFE_INTEGER);

/** CBOR map; amounts as decimal strings (they outgrow 64-bit integers). */
export function encodeAccount(account: Account): Uint8Array {
  const stored: StoredAccount = {
    omc: account.omc.toString(),
    ogt: account.ogt.toString(),
    // A number where it is exact: the encoder's fast path takes numbers, and the bytes are the same.
    nonce: account.nonce <= MAX_SAFE_NONCE ? Number(account.nonce) : account.nonce,
  };
  const bonds = Object.entries(account.bonded).filter(([, amount]) => amount > 0n);
  if (bonds.length > 0) stored.bonded = Object.fromEntries(bonds.map(([k, v]) => [k, v.toString()]));
  const bytes = encode(stored);
  decoded.set(bytes, { omc: account.omc, ogt: account.ogt, nonce: account.nonce, bonded: Object.fromEntries(bonds) });
  return bytes;
}

// State values are immutable byte arrays, read many times per block (mempool checks, execution):
// remember what each decoded to. Callers get a copy, since they may change it.
const decoded = new WeakMap<Uint8Array, Account>();

export function decodeAccount(bytes: Uint8Array | undefined): Account {
  if (!bytes) return { omc: 0n, ogt: 0n, nonce: 0n, bonded: {} };
  let account = decoded.get(bytes);
  if (!account) {
    const stored = decode<StoredAccount>(bytes);
    account = {
      omc: BigInt(stored.omc),
      ogt: BigInt(stored.ogt),
      nonce: BigInt(stored.nonce),
      bonded: Object.fromEntries(Object.entries(stored.bonded ?? {}).map(([k, v]) => [k, BigInt(v)])),
    };
    decoded.set(bytes, account);
  }
  return { omc: account.omc, ogt: account.ogt, nonce: account.nonce, bonded: { ...account.bonded } };
}

const NO_BONDS: Readonly<Record<string, string>> = Object.freeze({});

/** An account's balances as stored (decimal strings of base units) and OGT bonded per purpose. */
export interface StoredBalances {
  readonly omc: string;
  readonly ogt: string;
  readonly bonded: Readonly<Record<string, string>>;
}

const NO_BALANCES: StoredBalances = Object.freeze({ omc: '0', ogt: '0', bonded: NO_BONDS });

// What each stored account reads as, remembered as `decoded` is: an account polled for its balance
// (a wallet, a faucet page, a bench) is decoded once per change of it, not once per read.
const balances = new WeakMap<Uint8Array, StoredBalances>();

/** The balances as stored, for reads that only report them (shared and frozen: not to be changed). */
export function readBalances(bytes: Uint8Array | undefined): StoredBalances {
  if (!bytes) return NO_BALANCES;
  let known = balances.get(bytes);
  if (!known) {
    const stored = decode<StoredAccount>(bytes);
    known = Object.freeze({
      omc: stored.omc,
      ogt: stored.ogt,
      bonded: stored.bonded ? Object.freeze(stored.bonded) : NO_BONDS,
    });
    balances.set(bytes, known);
  }
  return known;
}
