import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account as EvmAccount, KECCAK256_NULL, KECCAK256_RLP, type Address as EvmAddress } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Address } from '../../sdk/address.js';
import { toHex } from '../../sdk/bytes.js';
import { isPromise } from '../../kernel/is-promise.js';
import { accountKey, decodeAccount, type Account } from '../../chain/state/accounts.js';
import {
  codeKey,
  contractKey,
  decodeContract,
  encodeContract,
  storageKey,
  storagePrefix,
  type ContractRecord,
} from './state.js';

/** Reads the world state a transaction or call runs on (a past block's state reads asynchronously). */
export type StateRead = (key: string) => Uint8Array | undefined | Promise<Uint8Array | undefined>;

/** Where a transaction's changes go when it ends: the block's state. */
export interface StateSink {
  setAccount(address: Address, account: Account): void;
  writeState(key: string, value: Uint8Array | undefined): void;
}

/** Who creates contracts in the transaction being run, and in which block (what a contract record keeps). */
export interface CreationContext {
  readonly creator: Address;
  readonly height: number;
}

const EMPTY = new Uint8Array(0);
/** A storage root that says "not empty" (EIP-7610 asks only whether an account has storage). */
const NONEMPTY_STORAGE_ROOT = keccak_256(new Uint8Array([1]));

/*
 * An address's hex by its bytes: a run asks for the same few addresses (sender, callee, proposer)
 * dozens of times, and ethereumjs never changes an address's bytes in place.
 */
const addressHex = new WeakMap<Uint8Array, string>();
function hex40(address: EvmAddress): string {
  let hex = addressHex.get(address.bytes);
  if (hex === undefined) addressHex.set(address.bytes, (hex = toHex(address.bytes).slice(2)));
  return hex;
}
const svcAddress = (address: EvmAddress): Address => `svc1${hex40(address)}`;

/** A value that may be a promise (a past block's state reads asynchronously; the head's does not). */
type MaybePromise<T> = T | Promise<T>;

function stripZeros(value: Uint8Array): Uint8Array {
  let start = 0;
  while (start < value.length && value[start] === 0) start++;
  return start === 0 ? value : value.subarray(start);
}

/** One layer of uncommitted changes: accounts by address, other keys by name (undefined = deleted). */
interface Layer {
  readonly accounts: Map<Address, Account>;
  readonly keys: Map<string, Uint8Array | undefined>;
}

const newLayer = (): Layer => ({ accounts: new Map(), keys: new Map() });

const copyAccount = (account: Account): Account => ({ ...account, bonded: { ...account.bonded } });

/*
 * What stored values decode to, by the value's bytes: the state hands out one object per stored
 * value and never changes one in place, so a contract's record or a sender's account is decoded
 * once while it is unchanged instead of on every read (a transfer reads each several times).
 * Records are read-only; accounts are copied before use.
 */
const decodedAccounts = new WeakMap<Uint8Array, Account>();
const decodedContracts = new WeakMap<Uint8Array, ContractRecord>();

function decodedAccount(bytes: Uint8Array | undefined): Account | undefined {
  if (!bytes) return undefined;
  let decoded = decodedAccounts.get(bytes);
  if (!decoded) decodedAccounts.set(bytes, (decoded = decodeAccount(bytes)));
  return decoded;
}

function decodedContract(bytes: Uint8Array | undefined): ContractRecord | undefined {
  if (!bytes) return undefined;
  let decoded = decodedContracts.get(bytes);
  if (!decoded) decodedContracts.set(bytes, (decoded = decodeContract(bytes)!));
  return decoded;
}

/**
 * The EVM's state manager over the chain's world state: balances and nonces are the accounts' OMC
 * and nonce, code and storage live under `evm/` (plugins/evm/state.ts). Checkpoints are layers of
 * changes; `finish` hands what the transaction changed to the block. One instance serves a whole
 * block (re-bound per transaction with `bind`), so the VM is built once.
 */
export class WorldStateManager implements StateManagerInterface {
  private read: StateRead = () => undefined;
  private layers: Layer[] = [newLayer()];
  private creation: CreationContext | undefined;

  /** Runs the next transaction or call on `read`, with nothing pending. */
  bind(read: StateRead, creation?: CreationContext): void {
    this.read = read;
    this.layers = [newLayer()];
    this.creation = creation;
  }

  /** Writes what the bound transaction changed into the block's state. */
  finish(sink: StateSink): void {
    if (this.layers.length !== 1) throw new Error(`EVM state: ${this.layers.length - 1} checkpoints left open`);
    const [layer] = this.layers as [Layer];
    for (const [address, account] of layer.accounts) sink.setAccount(address, account);
    for (const [key, value] of layer.keys) sink.writeState(key, value);
    this.layers = [newLayer()];
  }

  /**
   * A value as the running transaction sees it, synchronously when it can be: from the open layers,
   * then `fetched` (values read earlier from the state), else the state's read (a promise for a past
   * block's state). For precompiles, whose rules read synchronously.
   */
  peek(
    key: string,
    fetched: ReadonlyMap<string, Uint8Array | undefined>,
  ): Uint8Array | undefined | Promise<Uint8Array | undefined> {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const keys = this.layers[i]!.keys;
      if (keys.has(key)) return keys.get(key);
    }
    return fetched.has(key) ? fetched.get(key) : this.read(key);
  }

  /** An account changed by the running transaction (a copy), or undefined when it has not changed it. */
  changedAccount(address: Address): Account | undefined {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const found = this.layers[i]!.accounts.get(address);
      if (found) return copyAccount(found);
    }
    return undefined;
  }

  /** Writes a key in the current layer (undone with it). */
  put(key: string, value: Uint8Array | undefined): void {
    this.set(key, value);
  }

  /** Writes an account in the current layer (undone with it). */
  putAccountRecord(address: Address, account: Account): void {
    this.setAccountRecord(address, copyAccount(account));
  }

  /** A key's value as the running transaction sees it: from the open layers, else from the state. */
  private get(key: string): MaybePromise<Uint8Array | undefined> {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const keys = this.layers[i]!.keys;
      if (keys.has(key)) return keys.get(key);
    }
    return this.read(key);
  }

  private set(key: string, value: Uint8Array | undefined): void {
    this.layers[this.layers.length - 1]!.keys.set(key, value);
  }

  /** The account to change (a copy), empty when it does not exist. */
  private async account(address: Address): Promise<Account> {
    const found = await this.accountIfAny(address);
    return found ? copyAccount(found) : decodeAccount(undefined);
  }

  /** The account as the running transaction sees it (read-only: shared), undefined when it does not exist. */
  private accountIfAny(address: Address): MaybePromise<Account | undefined> {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const found = this.layers[i]!.accounts.get(address);
      if (found) return found;
    }
    const bytes = this.read(accountKey(address));
    return isPromise<Uint8Array | undefined>(bytes) ? bytes.then(decodedAccount) : decodedAccount(bytes);
  }

  private setAccountRecord(address: Address, account: Account): void {
    this.layers[this.layers.length - 1]!.accounts.set(address, account);
  }

  private contract(address: EvmAddress): MaybePromise<ContractRecord | undefined> {
    const bytes = this.get(contractKey(hex40(address)));
    return isPromise<Uint8Array | undefined>(bytes) ? bytes.then(decodedContract) : decodedContract(bytes);
  }

  // The EVM asks for accounts a dozen times a run: the head's state answers synchronously, and only
  // a past block's reads are awaited.
  async getAccount(address: EvmAddress): Promise<EvmAccount | undefined> {
    const found = this.accountIfAny(svcAddress(address));
    const account = isPromise<Account | undefined>(found) ? await found : found;
    const record = this.contract(address);
    const contract = isPromise<ContractRecord | undefined>(record) ? await record : record;
    if (account === undefined && contract === undefined) return undefined;
    return new EvmAccount(
      account?.nonce ?? 0n,
      account?.omc ?? 0n,
      contract?.storage ? NONEMPTY_STORAGE_ROOT : KECCAK256_RLP,
      contract?.codeHash ?? KECCAK256_NULL,
    );
  }

  async putAccount(address: EvmAddress, evmAccount?: EvmAccount): Promise<void> {
    if (evmAccount === undefined) return this.deleteAccount(address);
    const svc = svcAddress(address);
    const account = await this.account(svc);
    account.nonce = evmAccount.nonce;
    account.omc = evmAccount.balance;
    this.setAccountRecord(svc, account);
  }

  /**
   * What the EVM deletes is its view of the account (OMC, nonce, code, storage); OGT and bonds are
   * the chain's and stay (EIP-161 removes "empty" accounts that may still hold them).
   */
  async deleteAccount(address: EvmAddress): Promise<void> {
    const svc = svcAddress(address);
    const account = await this.account(svc);
    account.nonce = 0n;
    account.omc = 0n;
    this.setAccountRecord(svc, account);
    const contract = await this.contract(address);
    if (contract) {
      await this.clearStorage(address);
      this.set(contractKey(hex40(address)), undefined);
    }
  }

  async modifyAccountFields(address: EvmAddress, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new EvmAccount();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    if (fields.codeHash !== undefined && !equal(fields.codeHash, account.codeHash))
      throw new Error('EVM state: code changes through putCode only');
    await this.putAccount(address, account);
  }

  async putCode(address: EvmAddress, code: Uint8Array): Promise<void> {
    const codeHash = keccak_256(code);
    const existing = await this.contract(address);
    if (code.length > 0) this.set(codeKey(toHex(codeHash).slice(2)), code);
    const creation = this.creation ?? { creator: svcAddress(address), height: 0 };
    this.set(
      contractKey(hex40(address)),
      encodeContract({
        codeHash: code.length > 0 ? codeHash : KECCAK256_NULL,
        creator: existing?.creator ?? creation.creator,
        createdAt: existing?.createdAt ?? creation.height,
        ...(existing?.storage ? { storage: true as const } : {}),
      }),
    );
    // An account with code exists even when it holds nothing.
    const svc = svcAddress(address);
    this.setAccountRecord(svc, await this.account(svc));
  }

  async getCode(address: EvmAddress): Promise<Uint8Array> {
    const contract = await this.contract(address);
    if (!contract || equal(contract.codeHash, KECCAK256_NULL)) return EMPTY;
    return (await this.get(codeKey(toHex(contract.codeHash).slice(2)))) ?? EMPTY;
  }

  async getCodeSize(address: EvmAddress): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: EvmAddress, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw new Error('EVM state: storage keys are 32 bytes');
    return (await this.get(storageKey(hex40(address), toHex(key).slice(2)))) ?? EMPTY;
  }

  async putStorage(address: EvmAddress, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error('EVM state: storage keys are 32 bytes');
    const stripped = stripZeros(value);
    this.set(
      storageKey(hex40(address), toHex(key).slice(2)),
      stripped.length === 0 ? undefined : Uint8Array.from(stripped),
    );
    if (stripped.length > 0) {
      const contract = await this.contract(address);
      if (!contract?.storage) {
        const creation = this.creation ?? { creator: svcAddress(address), height: 0 };
        this.set(
          contractKey(hex40(address)),
          encodeContract({
            codeHash: contract?.codeHash ?? KECCAK256_NULL,
            creator: contract?.creator ?? creation.creator,
            createdAt: contract?.createdAt ?? creation.height,
            storage: true,
          }),
        );
      }
    }
  }

  /**
   * Storage can only be cleared where it was written in the transaction running: the EVM clears
   * the storage of an account it creates (which EIP-7610 guarantees has none) and of one that
   * self-destructs in the transaction that created it (EIP-6780). Slots written there are all in
   * this transaction's layers.
   */
  async clearStorage(address: EvmAddress): Promise<void> {
    const contract = await this.contract(address);
    if (!contract?.storage) return;
    const prefix = storagePrefix(hex40(address));
    for (const layer of this.layers)
      for (const key of layer.keys.keys()) if (key.startsWith(prefix)) this.set(key, undefined);
    this.set(
      contractKey(hex40(address)),
      encodeContract({ codeHash: contract.codeHash, creator: contract.creator, createdAt: contract.createdAt }),
    );
  }

  async checkpoint(): Promise<void> {
    this.layers.push(newLayer());
  }

  async commit(): Promise<void> {
    const top = this.layers.pop();
    const below = this.layers[this.layers.length - 1];
    if (!top || !below) throw new Error('EVM state: commit without a checkpoint');
    for (const [address, account] of top.accounts) below.accounts.set(address, account);
    for (const [key, value] of top.keys) below.keys.set(key, value);
  }

  async revert(): Promise<void> {
    if (this.layers.length < 2) throw new Error('EVM state: revert without a checkpoint');
    this.layers.pop();
  }

  /** Values as they were before the transaction (SSTORE's gas depends on them: EIP-2200). */
  readonly originalStorageCache = {
    get: async (address: EvmAddress, key: Uint8Array): Promise<Uint8Array> =>
      (await this.read(storageKey(hex40(address), toHex(key).slice(2)))) ?? EMPTY,
    clear: (): void => undefined,
  };

  // The chain commits to the state with its own root (chain/state/state-root.ts); the EVM's
  // Merkle-Patricia root is not computed (receipts since Byzantium carry a status, not a root).
  async getStateRoot(): Promise<Uint8Array> {
    return new Uint8Array(32);
  }

  async setStateRoot(): Promise<void> {
    throw new Error('EVM state: the chain moves between states, not the EVM');
  }

  async hasStateRoot(): Promise<boolean> {
    return false;
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    const copy = new WorldStateManager();
    copy.bind(this.read, this.creation);
    return copy;
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
