import { rawOf } from './raw-transactions.js';
import type { Address } from '../sdk/address.js';
import { formatAmountShort, type Asset } from '../sdk/amount.js';
import { fromHex } from '../sdk/bytes.js';
import { domainError } from '../sdk/errors.js';
import { isTxFailure, type TxFees } from './contract.js';
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
  readonly fees: TxFees | undefined;
}

/** A sender's pending transactions by nonce, with what they debit in all per asset (kept as they come and go). */
interface SenderPending {
  readonly byNonce: Map<number, Entry>;
  readonly committed: Map<Asset, bigint>;
}

/** How much both fees of a replacement must rise, in percent (geth's `--txpool.pricebump`). */
const PRICE_BUMP_PERCENT = 10n;

/** The least a replacement's fee may be: 10% more (rounded down, as geth does) and more than before. */
const bumped = (fee: bigint) => {
  const threshold = (fee * (100n + PRICE_BUMP_PERCENT)) / 100n;
  return threshold > fee ? threshold : fee + 1n;
};

export interface MempoolDeps {
  readonly state: StateReader;
  readonly kinds: TxKindRegistry;
  readonly chainId: string;
  /** The chain-rules version of the next block: what a transaction admitted now would run under. */
  readonly rulesVersion: () => number;
  readonly options: MempoolOptions;
  readonly now?: () => number;
}

/** A transaction hash in a block's list, as it travels (0x hex in CBOR). */
const TX_LIST_BYTES = 70;

/**
 * Pending transactions, checked on entry (signature, chain id, kind, payload, signer, nonce, funds
 * counting what the sender already has pending), ordered by sender nonce, bounded in size, and
 * dropping entries once stale. A pending transaction is replaced by one of the same sender and nonce
 * whose fees are both at least 10% higher (geth's rule); kinds without fees are never replaced.
 */
export class Mempool {
  private readonly byHash = new Map<string, Entry>();
  private readonly bySender = new Map<Address, SenderPending>();

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
    const pending = this.bySender.get(address)?.byNonce;
    while (pending?.has(nonce)) nonce++;
    return nonce;
  }

  /**
   * Admits a transaction (its signature verified inline, unless signed in this process) or throws the
   * domain error that says why not. Returns the pending transaction it replaced, if any.
   */
  add(tx: SignedTransaction): SignedTransaction | undefined {
    this.precheck(tx);
    if (!signedInThisProcess(tx) && !verifyEd25519(fromHex(tx.signature), fromHex(tx.hash), fromHex(tx.publicKey)))
      throw invalidSignature();
    return this.admitChecked(tx);
  }

  /** Like `add`, for a transaction whose signature the caller has verified (off the main loop). */
  addVerified(tx: SignedTransaction): SignedTransaction | undefined {
    this.precheck(tx);
    return this.admitChecked(tx);
  }

  private precheck(tx: SignedTransaction): void {
    if (this.byHash.has(tx.hash))
      throw domainError('already_known', `transaction ${tx.hash} is already pending`, { hash: tx.hash });
    if (tx.chainId !== this.deps.chainId)
      throw domainError('wrong_chain_id', `signed for chain ${tx.chainId}, this is ${this.deps.chainId}`, {
        expected: this.deps.chainId,
      });
  }

  private admitChecked(tx: SignedTransaction): SignedTransaction | undefined {
    const checked = this.deps.kinds.check(tx, this.deps.rulesVersion());
    if ('reason' in checked) {
      const refusal = checked.payload?.kind.spec.payloadRefusal?.(checked.payload.problem);
      throw domainError(refusal?.error ?? 'invalid_transaction', checked.reason, {
        field: checked.field,
        ...refusal?.data,
      });
    }
    try {
      checked.kind.spec.admit?.(tx.payload, checked.kind.service());
    } catch (error) {
      if (isTxFailure(error))
        throw domainError(error.error, error.message, { field: 'payload', ...(error.data ?? {}) });
      throw error;
    }
    const { kind } = checked;
    const account = decodeAccount(this.deps.state.get(accountKey(tx.from)));
    const accountNonce = Number(account.nonce);
    if (tx.nonce < accountNonce)
      throw domainError(
        'nonce_too_low',
        `nonce ${tx.nonce} is already used; the next nonce is ${this.nextNonce(tx.from)}`,
        { expected: this.nextNonce(tx.from) },
      );
    if (tx.nonce >= accountNonce + this.deps.options.maxNonceAhead) {
      throw domainError(
        'nonce_gap',
        `nonce ${tx.nonce} is more than ${this.deps.options.maxNonceAhead} ahead of the account nonce ${account.nonce}`,
        { expected: this.nextNonce(tx.from) },
      );
    }
    const pending = this.bySender.get(tx.from);
    const fees = kind.spec.fees?.(tx.payload, kind.service());
    const replaced = pending?.byNonce.get(tx.nonce);
    if (replaced) this.checkReplacement(replaced, tx, fees);
    const debits = kind.spec.debits?.(tx.payload, kind.service()) ?? [];
    for (const { asset, amount } of debits) {
      let committed = pending?.committed.get(asset) ?? 0n;
      for (const d of replaced?.debits ?? []) if (d.asset === asset) committed -= d.amount;
      const balance = account[assetField(asset)];
      if (committed + amount > balance) {
        throw domainError(
          'insufficient_funds',
          `${tx.from} holds ${formatAmountShort(balance)} ${asset}${committed > 0n ? ` with ${formatAmountShort(committed)} ${asset} already pending` : ''}, needs ${formatAmountShort(amount)} ${asset}`,
          { asset, balance: balance.toString(), needed: amount.toString() },
        );
      }
    }
    if (!replaced && this.byHash.size >= this.deps.options.maxSize)
      throw domainError('mempool_full', `the mempool holds ${this.byHash.size} transactions; retry later`);
    if (replaced) this.drop(replaced.tx);
    const entry: Entry = { tx, addedAt: this.now(), debits, fees };
    this.byHash.set(tx.hash, entry);
    let senderPending = this.bySender.get(tx.from);
    if (!senderPending) {
      senderPending = { byNonce: new Map(), committed: new Map() };
      this.bySender.set(tx.from, senderPending);
    }
    senderPending.byNonce.set(tx.nonce, entry);
    for (const { asset, amount } of debits)
      senderPending.committed.set(asset, (senderPending.committed.get(asset) ?? 0n) + amount);
    return replaced?.tx;
  }

  /** Refuses a transaction that takes a pending one's nonce without paying enough more to replace it. */
  private checkReplacement(pending: Entry, tx: SignedTransaction, fees: TxFees | undefined): void {
    const conflict = `a pending transaction of ${tx.from} (${pending.tx.hash}) already has nonce ${tx.nonce}`;
    const expected = { expected: this.nextNonce(tx.from) };
    if (!pending.fees || !fees)
      throw domainError('nonce_conflict', `${conflict}; it has no fees to raise, so nothing replaces it`, expected);
    const cap = bumped(pending.fees.maxFeePerGas);
    const tip = bumped(pending.fees.maxPriorityFeePerGas);
    if (fees.maxFeePerGas < cap || fees.maxPriorityFeePerGas < tip) {
      throw domainError(
        'nonce_conflict',
        `${conflict}; a replacement must raise both fees by at least ${PRICE_BUMP_PERCENT}%: maxFeePerGas ≥ ${cap} and maxPriorityFeePerGas ≥ ${tip} (this one: ${fees.maxFeePerGas} and ${fees.maxPriorityFeePerGas})`,
        {
          ...expected,
          minMaxFeePerGas: cap.toString(),
          minMaxPriorityFeePerGas: tip.toString(),
        },
      );
    }
  }

  /** Up to `limit` transactions that can run now: for each sender, its run of consecutive nonces. */
  ready(limit: number, maxBytes = Number.POSITIVE_INFINITY): SignedTransaction[] {
    const out: SignedTransaction[] = [];
    let bytes = 0;
    for (const [sender, { byNonce: pending }] of this.bySender) {
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
      for (const entry of [...(this.bySender.get(sender)?.byNonce.values() ?? [])])
        if (entry.tx.nonce < nonce) this.drop(entry.tx);
    }
    const oldest = this.now() - this.deps.options.ttlMs;
    for (const entry of this.byHash.values()) {
      if (entry.addedAt >= oldest) break;
      this.drop(entry.tx);
    }
  }

  /**
   * Every pending transaction, as geth's txpool splits them: `pending` can run in the next block (a
   * run of nonces from the sender's), `queued` waits behind a nonce gap. By sender, in nonce order.
   */
  content(): { pending: SignedTransaction[]; queued: SignedTransaction[] } {
    const pending: SignedTransaction[] = [];
    const queued: SignedTransaction[] = [];
    for (const [sender, { byNonce }] of this.bySender) {
      let next = this.accountNonce(sender);
      for (const nonce of [...byNonce.keys()].sort((a, b) => a - b)) {
        const tx = byNonce.get(nonce)!.tx;
        if (nonce === next) {
          pending.push(tx);
          next += 1;
        } else queued.push(tx);
      }
    }
    return { pending, queued };
  }

  /** Takes a pending transaction out (dev mode's anvil_dropTransaction); false when it is not pending. */
  remove(hash: string): boolean {
    const entry = this.byHash.get(hash);
    if (!entry) return false;
    this.drop(entry.tx);
    return true;
  }

  /** Drops every pending transaction (the chain went back: they were checked against a state that is gone). */
  clear(): void {
    this.byHash.clear();
    this.bySender.clear();
  }

  private drop(tx: SignedTransaction): void {
    const entry = this.byHash.get(tx.hash);
    if (!entry) return;
    this.byHash.delete(tx.hash);
    const pending = this.bySender.get(tx.from);
    if (!pending) return;
    pending.byNonce.delete(tx.nonce);
    if (pending.byNonce.size === 0) {
      this.bySender.delete(tx.from);
      return;
    }
    for (const { asset, amount } of entry.debits) pending.committed.set(asset, pending.committed.get(asset)! - amount);
  }

  private accountNonce(address: Address): number {
    // A transaction nonce is a safe integer: an account past 2^53 (a state edit put it there) sends none.
    return Number(decodeAccount(this.deps.state.get(accountKey(address))).nonce);
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}
