import { rawOf } from './raw-transactions.js';
import type { Address } from '../sdk/address.js';
import { formatAmountShort, type Asset } from '../sdk/amount.js';
import { fromHex } from '../sdk/bytes.js';
import { domainError } from '../sdk/errors.js';
import { isTxFailure } from './contract.js';
import { signedInThisProcess, type SignedTransaction } from '../sdk/transaction.js';
import { accountKey, assetField, decodeAccount } from './state/accounts.js';
import type { StateReader } from './state/overlay.js';
import { verifyEd25519 } from './signatures.js';
import type { TxKindRegistry } from './tx-kinds.js';

export function invalidSignature(reason = 'the signature does not verify against the public key'): Error {
  return domainError('invalid_signature', reason);
}

export interface MempoolOptions {
  /** Most pending transactions in all. */
  readonly maxSize: number;
  /** How far past the account nonce a pending nonce may be. */
  readonly maxNonceAhead: number;
  /** Pending transactions older than this are dropped. */
  readonly ttlMs: number;
}

export const DEFAULT_MEMPOOL: MempoolOptions = { maxSize: 100_000, maxNonceAhead: 1_000, ttlMs: 10 * 60_000 };

interface Entry {
  readonly tx: SignedTransaction;
  readonly addedAt: number;
  readonly debits: readonly { asset: Asset; amount: bigint }[];
}

export interface MempoolDeps {
  readonly state: StateReader;
  readonly kinds: TxKindRegistry;
  readonly chainId: string;
  readonly options: MempoolOptions;
  readonly now?: () => number;
}

/**
 * Pending transactions, checked on entry (signature, chain id, kind, payload, signer, nonce, funds
 * counting what the sender already has pending), ordered by sender nonce, bounded in size, never
 * replacing a pending transaction, and dropping entries once stale.
 */
/** A transaction hash in a block's list, as it travels (0x hex in CBOR). */
const TX_LIST_BYTES = 70;

export class Mempool {
  private readonly byHash = new Map<string, Entry>();
  private readonly bySender = new Map<Address, Map<number, Entry>>();

  constructor(private readonly deps: MempoolDeps) {}

  get size(): number {
    return this.byHash.size;
  }

  /** How long a pending transaction is kept. */
  get ttlMs(): number {
    return this.deps.options.ttlMs;
  }

  has(hash: string): boolean {
    return this.byHash.has(hash);
  }

  get(hash: string): SignedTransaction | undefined {
    return this.byHash.get(hash)?.tx;
  }

  /** Pending transactions that entered at least `minAgeMs` ago, oldest first (entries keep their arrival order). */
  *pendingSince(minAgeMs: number): Iterable<SignedTransaction> {
    const newest = this.now() - minAgeMs;
    for (const entry of this.byHash.values()) {
      if (entry.addedAt > newest) return;
      yield entry.tx;
    }
  }

  /** The nonce a new transaction of `address` should carry: after the mined ones and the pending run. */
  nextNonce(address: Address): number {
    let nonce = this.accountNonce(address);
    const pending = this.bySender.get(address);
    while (pending?.has(nonce)) nonce++;
    return nonce;
  }

  /** Admits a transaction (its signature verified inline, unless signed in this process) or throws the domain error that says why not. */
  add(tx: SignedTransaction): void {
    this.precheck(tx);
    if (!signedInThisProcess(tx) && !verifyEd25519(fromHex(tx.signature), fromHex(tx.hash), fromHex(tx.publicKey))) throw invalidSignature();
    this.admitChecked(tx);
  }

  /** Like `add`, for a transaction whose signature the caller has verified (off the main loop). */
  addVerified(tx: SignedTransaction): void {
    this.precheck(tx);
    this.admitChecked(tx);
  }

  private precheck(tx: SignedTransaction): void {
    if (this.byHash.has(tx.hash)) throw domainError('already_known', `transaction ${tx.hash} is already pending`, { hash: tx.hash });
    if (tx.chainId !== this.deps.chainId) throw domainError('wrong_chain_id', `signed for chain ${tx.chainId}, this is ${this.deps.chainId}`, { expected: this.deps.chainId });
  }

  private admitChecked(tx: SignedTransaction): void {
    const checked = this.deps.kinds.check(tx);
    if ('reason' in checked) {
      const refusal = checked.payload?.kind.spec.payloadRefusal?.(checked.payload.problem);
      throw domainError(refusal?.error ?? 'invalid_transaction', checked.reason, { field: checked.field, ...refusal?.data });
    }
    try {
      checked.kind.spec.admit?.(tx.payload, checked.kind.service());
    } catch (error) {
      if (isTxFailure(error)) throw domainError(error.error, error.message, { field: 'payload', ...(error.data ?? {}) });
      throw error;
    }
    const { kind } = checked;
    const account = decodeAccount(this.deps.state.get(accountKey(tx.from)));
    if (tx.nonce < account.nonce) throw domainError('nonce_too_low', `nonce ${tx.nonce} is already used; the next nonce is ${this.nextNonce(tx.from)}`, { expected: this.nextNonce(tx.from) });
    if (tx.nonce >= account.nonce + this.deps.options.maxNonceAhead) {
      throw domainError('nonce_gap', `nonce ${tx.nonce} is more than ${this.deps.options.maxNonceAhead} ahead of the account nonce ${account.nonce}`, { expected: this.nextNonce(tx.from) });
    }
    const pending = this.bySender.get(tx.from);
    if (pending?.has(tx.nonce)) throw domainError('nonce_conflict', `a pending transaction of ${tx.from} already has nonce ${tx.nonce}; nothing is replaced`, { expected: this.nextNonce(tx.from) });
    const debits = kind.spec.debits?.(tx.payload, kind.service()) ?? [];
    for (const { asset, amount } of debits) {
      let committed = 0n;
      for (const entry of pending?.values() ?? []) for (const d of entry.debits) if (d.asset === asset) committed += d.amount;
      const balance = account[assetField(asset)];
      if (committed + amount > balance) {
        throw domainError('insufficient_funds', `${tx.from} holds ${formatAmountShort(balance)} ${asset}${committed > 0n ? ` with ${formatAmountShort(committed)} ${asset} already pending` : ''}, needs ${formatAmountShort(amount)} ${asset}`, { asset, balance: balance.toString(), needed: amount.toString() });
      }
    }
    if (this.byHash.size >= this.deps.options.maxSize) throw domainError('mempool_full', `the mempool holds ${this.byHash.size} transactions; retry later`);
    const entry: Entry = { tx, addedAt: this.now(), debits };
    this.byHash.set(tx.hash, entry);
    if (pending) pending.set(tx.nonce, entry);
    else this.bySender.set(tx.from, new Map([[tx.nonce, entry]]));
  }

  /** Up to `limit` transactions that can run now: for each sender, its run of consecutive nonces. */
  ready(limit: number, maxBytes = Number.POSITIVE_INFINITY): SignedTransaction[] {
    const out: SignedTransaction[] = [];
    let bytes = 0;
    for (const [sender, pending] of this.bySender) {
      let nonce = this.accountNonce(sender);
      for (let entry = pending.get(nonce); entry && out.length < limit; entry = pending.get(++nonce)) {
        // What the transaction weighs where a block travels: its bytes and its hash in the block's list.
        bytes += maxBytes === Number.POSITIVE_INFINITY ? 0 : rawOf(entry.tx).length + TX_LIST_BYTES;
        if (bytes > maxBytes) return out;
        out.push(entry.tx);
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  /** After a block: drops what it included, what its nonces made stale, and what waited too long. */
  afterBlock(included: readonly SignedTransaction[]): void {
    const senders = new Set<Address>();
    for (const tx of included) {
      this.drop(tx);
      senders.add(tx.from);
    }
    for (const sender of senders) {
      const nonce = this.accountNonce(sender);
      for (const entry of [...(this.bySender.get(sender)?.values() ?? [])]) if (entry.tx.nonce < nonce) this.drop(entry.tx);
    }
    const oldest = this.now() - this.deps.options.ttlMs;
    for (const entry of this.byHash.values()) {
      if (entry.addedAt >= oldest) break;
      this.drop(entry.tx);
    }
  }

  private drop(tx: SignedTransaction): void {
    if (!this.byHash.delete(tx.hash)) return;
    const pending = this.bySender.get(tx.from);
    pending?.delete(tx.nonce);
    if (pending?.size === 0) this.bySender.delete(tx.from);
  }

  private accountNonce(address: Address): number {
    return decodeAccount(this.deps.state.get(accountKey(address))).nonce;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}
