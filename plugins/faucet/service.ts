import type { Address } from '../../sdk/address.js';
import { formatAmountShort, parseAmount } from '../../sdk/amount.js';
import { decode } from '../../sdk/encoding.js';
import { domainError } from '../../sdk/errors.js';
import type { KeyPair } from '../../sdk/keys.js';
import { signTransaction, type SignedTransaction } from '../../sdk/transaction.js';
import type { ChainReader, TxSubmitter } from '../../chain/capabilities.js';
import type { Logger } from '../../kernel/log.js';
import type { Table } from '../../kernel/storage/layout.js';
import { DEFAULT_MEMPOOL } from '../../chain/mempool.js';

export interface FaucetOptions {
  readonly chain: ChainReader;
  readonly submitter: TxSubmitter;
  readonly key: KeyPair;
  readonly cooldowns: Table<string, number>;
  readonly omcGrant: string;
  readonly ogtGrant: string;
  readonly cooldownSeconds: number;
  readonly perIpLimit: number;
  readonly perIpWindowSeconds: number;
  readonly log: Logger;
  readonly now?: () => number;
  /** The network's faucet authority, when another node is it: grants are asked of it (authority.ts); else this node decides them. */
  readonly authority?: (address: Address) => Promise<Grant>;
}

const MAX_TRACKED_CLIENTS = 100_000;
/**
 * How long a grant whose mint keeps losing its nonce is signed again: as long as the mempool keeps a
 * transaction. A node catching up after a partition imports many blocks at once, and each may take
 * the nonce it just signed with; a count of attempts ran out in half a second and lost the grant.
 */
const GRANT_RETRY_MS = DEFAULT_MEMPOOL.ttlMs;

/** Consensus state: `faucet/granted/<address>` -> CBOR block time (unix ms) of its last grant. */
export const grantKey = (address: Address): string => `faucet/granted/${address}`;

export function lastGrantAt(read: (key: string) => Uint8Array | undefined, address: Address): number | undefined {
  const raw = read(grantKey(address));
  return raw ? decode<number>(raw) : undefined;
}

export interface FaucetStatusView {
  address: Address;
  eligible: boolean;
  nextEligibleAt: number | null;
  retryAfterSeconds: number;
  waitingFor: 'cooldown' | 'client_limit' | null;
}

export interface Grant {
  omcMinted: string;
  ogtMinted: string;
  status: 'funded';
  txHash: string;
}

/**
 * Devnet faucet: mints a grant to an address through a `faucet.mint` transaction signed by the
 * genesis faucet key, at most once per cooldown per address. The last grant per address is kept
 * in memory and in `faucet.cooldowns`, so cooldowns survive restarts; the check and the reservation
 * happen in one synchronous step, so concurrent requests for one address grant once.
 */
export class Faucet {
  private readonly lastGrant = new Map<Address, number>();
  /** Client address -> grants in its current window (LRU-bounded). */
  private readonly perClient = new Map<string, { start: number; grants: number }>();
  private readonly omc: bigint;
  private readonly ogt: bigint;
  /** Mints this node acknowledged and has not seen in a block yet: tx hash -> grant. */
  private readonly outstanding = new Map<string, { address: Address; attempts: number; since: number }>();

  constructor(private readonly options: FaucetOptions) {
    this.omc = parseAmount(options.omcGrant);
    this.ogt = parseAmount(options.ogtGrant);
  }

  get address(): Address {
    return this.options.key.address;
  }

  async load(): Promise<void> {
    const horizon = this.now() - this.options.cooldownSeconds * 1000;
    for await (const [address, at] of this.options.cooldowns.entries()) {
      if (at > horizon) this.lastGrant.set(address as Address, at);
    }
  }

  /** Seconds until `address` may be granted again (0 = now): by this node's grants, and by the chain's (any node's, once mined). */
  retryAfter(address: Address): number {
    const local = this.lastGrant.get(address);
    const onChain = lastGrantAt((key) => this.options.chain.state.get(key), address);
    const last = Math.max(local ?? -Infinity, onChain ?? -Infinity);
    if (last === -Infinity) return 0;
    const remaining = last + this.options.cooldownSeconds * 1000 - this.now();
    return remaining > 0 ? Math.ceil(remaining / 1000) : 0;
  }

  /** What `faucet_request` from `client` for `address` would meet now: the cooldown and the per-client throttle. */
  status(address: Address, client: string): FaucetStatusView {
    const cooldown = this.retryAfter(address);
    const throttled = this.clientRetryAfter(client, this.now());
    const wait = Math.max(cooldown, throttled);
    const waitingFor = wait === 0 ? null : throttled > cooldown ? 'client_limit' : 'cooldown';
    return {
      address,
      eligible: wait === 0,
      nextEligibleAt: wait === 0 ? null : this.now() + wait * 1000,
      retryAfterSeconds: wait,
      waitingFor,
    };
  }

  /** `faucet_request` from `client`: its per-client limit here, the grant decided here or by the network's authority. */
  async request(address: Address, client: string): Promise<Grant> {
    const now = this.now();
    const throttled = this.clientRetryAfter(client, now);
    if (throttled > 0) {
      throw domainError(
        'rate_limited',
        `this client had ${this.options.perIpLimit} faucet grants in the last ${this.options.perIpWindowSeconds} s; try again in ${throttled} s`,
        { retryAfterSeconds: throttled },
      );
    }
    // Counted before the answer, so concurrent requests of one client stay within its limit; given back on a refusal.
    this.countGrant(client, now);
    try {
      return await (this.options.authority ?? ((to: Address) => this.decide(to)))(address);
    } catch (error) {
      this.uncountGrant(client);
      throw error;
    }
  }

  /**
   * Grants `address` unless its cooldown holds: the mint is signed and journaled before the answer.
   * The check and the reservation are one synchronous step, so concurrent requests grant once; on a
   * network, only its authority decides (authority.ts).
   */
  async decide(address: Address): Promise<Grant> {
    const now = this.now();
    const wait = this.retryAfter(address);
    if (wait > 0)
      throw domainError(
        'cooldown_active',
        `${address} was funded less than ${this.options.cooldownSeconds} s ago; try again in ${wait} s`,
        { retryAfterSeconds: wait },
      );
    const previous = this.lastGrant.get(address);
    this.lastGrant.set(address, now);
    let txHash: string;
    let durable: Promise<void>;
    try {
      ({ hash: txHash, durable } = this.mint(address));
    } catch (error) {
      if (previous === undefined) this.lastGrant.delete(address);
      else this.lastGrant.set(address, previous);
      throw error;
    }
    await durable;
    await this.options.cooldowns.putNow(address, now);
    this.options.log.info({ to: address, tx: txHash }, 'faucet grant');
    return { omcMinted: formatAmountShort(this.omc), ogtMinted: formatAmountShort(this.ogt), status: 'funded', txHash };
  }

  /** Signs and submits a mint of the grant to `address` with the faucet account's next nonce: its hash, and when it is journaled. */
  private mint(address: Address): { hash: string; durable: Promise<void> } {
    const { chain, submitter, key } = this.options;
    const tx = signTransaction(
      {
        chainId: chain.genesis.chainId,
        kind: 'faucet.mint',
        nonce: submitter.nextNonce(key.address),
        payload: {
          to: address,
          omc: this.omc.toString(),
          ogt: this.ogt.toString(),
          cooldownSeconds: this.options.cooldownSeconds,
        },
      },
      key,
    );
    const durable = submitter.submit(tx);
    this.outstanding.set(tx.hash, { address, attempts: 1, since: this.now() });
    return { hash: tx.hash, durable };
  }

  /**
   * At start, with the journal replayed: this node's grants pending again are watched as before the
   * stop, and a grant whose mint lost its nonce while the node was down is signed again.
   */
  afterRestart(pending: readonly SignedTransaction[], superseded: readonly SignedTransaction[]): void {
    const mints = (txs: readonly SignedTransaction[]) =>
      txs.filter((tx) => tx.kind === 'faucet.mint' && tx.from === this.options.key.address);
    for (const tx of mints(pending))
      this.outstanding.set(tx.hash, { address: (tx.payload as { to: Address }).to, attempts: 1, since: this.now() });
    for (const tx of mints(superseded)) {
      const to = (tx.payload as { to: Address }).to;
      try {
        const { hash, durable } = this.mint(to);
        durable.catch((error: unknown) =>
          this.options.log.error({ to, tx: hash, err: error }, 'faucet grant signed again but not journaled'),
        );
        this.options.log.warn(
          { to, dropped: tx.hash, tx: hash },
          "faucet grant signed again: another node's mint took its nonce while this node was down",
        );
      } catch (error) {
        this.options.log.warn({ to, tx: tx.hash, err: error }, 'faucet grant could not be signed again');
      }
    }
  }

  /**
   * After each block: a grant this node acknowledged whose mint left the mempool without being in a
   * block lost its nonce to another node's mint (every node signs with the one faucet account); it
   * is signed again with the next nonce, so the grant is not lost.
   */
  afterBlock(included: readonly string[]): void {
    if (this.outstanding.size === 0) return;
    const mined = new Set(included);
    for (const [hash, grant] of [...this.outstanding]) {
      if (mined.has(hash)) {
        this.outstanding.delete(hash);
        continue;
      }
      if (this.options.submitter.isPending(hash)) continue;
      this.outstanding.delete(hash);
      if (this.now() - grant.since >= GRANT_RETRY_MS) {
        this.options.log.warn(
          { to: grant.address, tx: hash, attempts: grant.attempts },
          `faucet grant dropped: its mint lost its nonce ${grant.attempts} times in ${Math.round(GRANT_RETRY_MS / 60_000)} minutes`,
        );
        continue;
      }
      try {
        const { hash: again, durable } = this.mint(grant.address);
        durable.catch((error: unknown) =>
          this.options.log.error(
            { to: grant.address, tx: again, err: error },
            'faucet grant signed again but not journaled',
          ),
        );
        this.outstanding.set(again, { address: grant.address, attempts: grant.attempts + 1, since: grant.since });
        this.options.log.warn(
          { to: grant.address, dropped: hash, tx: again, attempt: grant.attempts + 1 },
          "faucet grant signed again: another node's mint took its nonce",
        );
      } catch (error) {
        this.options.log.warn({ to: grant.address, tx: hash, err: error }, 'faucet grant could not be signed again');
      }
    }
  }

  /** Seconds until `client` may be granted again under the per-address throttle (0 = now). */
  private clientRetryAfter(client: string, now: number): number {
    if (this.options.perIpLimit === 0) return 0;
    const entry = this.perClient.get(client);
    const windowMs = this.options.perIpWindowSeconds * 1000;
    if (!entry || now - entry.start >= windowMs || entry.grants < this.options.perIpLimit) return 0;
    return Math.max(1, Math.ceil((entry.start + windowMs - now) / 1000));
  }

  private countGrant(client: string, now: number): void {
    if (this.options.perIpLimit === 0) return;
    let entry = this.perClient.get(client);
    this.perClient.delete(client);
    if (!entry || now - entry.start >= this.options.perIpWindowSeconds * 1000) entry = { start: now, grants: 0 };
    entry.grants++;
    this.perClient.set(client, entry);
    if (this.perClient.size > MAX_TRACKED_CLIENTS) this.perClient.delete(this.perClient.keys().next().value!);
  }

  private uncountGrant(client: string): void {
    const entry = this.perClient.get(client);
    if (entry && entry.grants > 0) entry.grants--;
  }

  /** Forgets grants whose cooldown or throttle window has passed (bounds memory). */
  sweep(): void {
    const now = this.now();
    const horizon = now - this.options.cooldownSeconds * 1000;
    for (const [address, at] of this.lastGrant) if (at <= horizon) this.lastGrant.delete(address);
    for (const [client, entry] of this.perClient)
      if (now - entry.start >= this.options.perIpWindowSeconds * 1000) this.perClient.delete(client);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
