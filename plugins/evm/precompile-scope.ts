import type { Address } from '../../sdk/address.js';
import type { Asset } from '../../sdk/amount.js';
import type { BlockContext, BlockEnv } from '../../chain/contract.js';
import { InBlock } from '../../chain/block-env.js';
import { accountKey, decodeAccount, type Account } from '../../chain/state/accounts.js';
import type { WorldStateManager } from './state-manager.js';
import { creditAccount, debitAccount } from '../../chain/balance-changes.js';
import { isPromise } from '../../kernel/is-promise.js';

/**
 * A value the state gives only asynchronously (a past block's, from disk): the call is run again
 * from the start once it is read. Rules read synchronously; a precompile's reads are few.
 */
export class MustRead extends Error {
  override name = 'MustRead';
  constructor(
    readonly key: string,
    readonly pending: Promise<Uint8Array | undefined>,
  ) {
    super(`state key ${key} must be read first`);
  }
}

const copy = (account: Account): Account => ({ ...account, bonded: { ...account.bonded } });

/**
 * Accounts and consensus state as a precompile call sees them, over the EVM's state for the
 * transaction: reads through its open layers, writes kept here until the call succeeds (`apply`),
 * so a refused call leaves nothing. The same write rule as a plugin's own transactions: its keys.
 */
export class PrecompileScope extends InBlock implements BlockContext {
  private readonly keys = new Map<string, Uint8Array | undefined>();
  private readonly accounts = new Map<Address, Account>();

  constructor(
    private readonly state: WorldStateManager,
    /** Values already read from the state for this call: kept across its runs. */
    private readonly fetched: Map<string, Uint8Array | undefined>,
    block: BlockEnv,
    private readonly owner: string,
  ) {
    super(block);
  }

  private base(key: string): Uint8Array | undefined {
    const value = this.state.peek(key, this.fetched);
    if (isPromise<Uint8Array | undefined>(value)) throw new MustRead(key, value);
    return value;
  }

  account(address: Address): Account {
    const changed = this.accounts.get(address) ?? this.state.changedAccount(address);
    return changed ? copy(changed) : decodeAccount(this.base(accountKey(address)));
  }

  setAccount(address: Address, account: Account): void {
    this.accounts.set(address, copy(account));
  }

  credit(address: Address, asset: Asset, amount: bigint): void {
    creditAccount(this, address, asset, amount);
  }

  debit(address: Address, asset: Asset, amount: bigint): void {
    debitAccount(this, address, asset, amount);
  }

  readState(key: string): Uint8Array | undefined {
    return this.keys.has(key) ? this.keys.get(key) : this.base(key);
  }

  writeState(key: string, value: Uint8Array | undefined): void {
    if (!key.startsWith(`${this.owner}/`))
      throw new Error(
        `a precompile of plugin "${this.owner}" may only write state keys under "${this.owner}/", not "${key}"`,
      );
    this.keys.set(key, value);
  }

  /** How many keys and accounts the call changed. */
  get changes(): number {
    return this.keys.size + this.accounts.size;
  }

  /** Hands what the call changed to the EVM's state (into its current layer: undone if a caller reverts). */
  apply(): void {
    for (const [key, value] of this.keys) this.state.put(key, value);
    for (const [address, account] of this.accounts) this.state.putAccountRecord(address, account);
  }
}
