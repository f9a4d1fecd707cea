import type { Address } from '../sdk/address.js';
import { formatAmountShort, type Asset } from '../sdk/amount.js';
import { TxFailure } from './contract.js';
import { assetField, type Account } from './state/accounts.js';

/** Where an account is read and written: a block's scope, or a precompile call's. */
interface AccountStore {
  account(address: Address): Account;
  setAccount(address: Address, account: Account): void;
}

/** Adds `amount` of `asset` to an account. */
export function creditAccount(store: AccountStore, address: Address, asset: Asset, amount: bigint): void {
  if (amount < 0n) throw new Error('credit of a negative amount');
  const account = store.account(address);
  account[assetField(asset)] += amount;
  store.setAccount(address, account);
}

/** Takes `amount` of `asset` from an account; TxFailure `insufficient_funds` when it holds less. */
export function debitAccount(store: AccountStore, address: Address, asset: Asset, amount: bigint): void {
  if (amount < 0n) throw new Error('debit of a negative amount');
  const account = store.account(address);
  const field = assetField(asset);
  if (account[field] < amount)
    throw new TxFailure(
      'insufficient_funds',
      `${address} holds ${formatAmountShort(account[field])} ${asset}, needs ${formatAmountShort(amount)} ${asset}`,
    );
  account[field] -= amount;
  store.setAccount(address, account);
}
