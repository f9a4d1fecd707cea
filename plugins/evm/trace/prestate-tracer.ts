import { toHex } from '../../../sdk/bytes.js';
import { addressOfHex } from '../../../sdk/address.js';
import { accountKey, decodeAccount } from '../../../chain/state/accounts.js';
import { codeKey, contractKey, decodeContract, storageKey } from '../state.js';
import type { EvmOutcome } from '../runner.js';
import { AccessListTracer } from './access-list-tracer.js';
import type { Tracer, TracedRun } from './tracer.js';
import type { EVMInterface } from '@ethereumjs/evm';

/** An account as geth's prestateTracer shows it: fields it has, empty ones left out. */
interface PrestateAccount {
  balance: string;
  nonce?: number;
  code?: string;
  storage?: Record<string, string>;
}

const word = (bytes: Uint8Array | undefined): string =>
  `0x${toHex(bytes ?? new Uint8Array())
    .slice(2)
    .padStart(64, '0')}`;

/** An account's fields as the tracer reads them from a state. */
async function accountIn(
  read: (key: string) => Promise<Uint8Array | undefined>,
  address: string,
  slots: ReadonlySet<string>,
): Promise<{ exists: boolean; account: PrestateAccount }> {
  const hex40 = address.slice(2);
  const raw = await read(accountKey(addressOfHex(address)));
  const record = decodeAccount(raw);
  const contract = decodeContract(await read(contractKey(hex40)));
  const code = contract ? await read(codeKey(toHex(contract.codeHash).slice(2))) : undefined;
  const account: PrestateAccount = { balance: `0x${record.omc.toString(16)}` };
  if (record.nonce > 0n) account.nonce = Number(record.nonce);
  if (code && code.length > 0) account.code = toHex(code);
  if (slots.size > 0) {
    account.storage = {};
    for (const slot of slots) account.storage[slot] = word(await read(storageKey(hex40, slot.slice(2))));
  }
  return { exists: raw !== undefined || contract !== undefined, account };
}

const ZERO_WORD = `0x${'0'.repeat(64)}`;

/**
 * geth's `prestateTracer`: every account the run touches — its sender and recipient, and what SLOAD,
 * SSTORE, BALANCE, EXTCODE*, the CALL family and SELFDESTRUCT reach — as it was before the run
 * (balance, nonce, code and the slots the run touched). In `diffMode`, as geth and Anvil give it:
 * `pre` holds the accounts the run changed as they were (their changed slots only), `post` what changed
 * in them (an account the run made is in `post` only, one it deleted in `pre` only; a slot empty before is
 * left out of `pre`, one emptied out of `post`).
 */
export class PrestateTracer implements Tracer {
  private readonly touches = new AccessListTracer(() => false);
  private answer: unknown = {};

  constructor(private readonly diffMode = false) {}

  attach(evm: EVMInterface): () => void {
    return this.touches.attach(evm);
  }

  async settle(
    before: (key: string) => Promise<Uint8Array | undefined>,
    run: TracedRun,
    after?: (key: string) => Promise<Uint8Array | undefined>,
  ): Promise<void> {
    const accounts = new Map(this.touches.touchedAccounts);
    for (const address of [run.from, run.to])
      if (address && !accounts.has(address.toLowerCase())) accounts.set(address.toLowerCase(), new Set());
    const pre: Record<string, PrestateAccount> = {};
    const post: Record<string, Partial<PrestateAccount>> = {};
    for (const [address, slots] of accounts) {
      const was = await accountIn(before, address, slots);
      if (!this.diffMode) {
        pre[address] = was.account;
        continue;
      }
      const is = await accountIn(after!, address, slots);
      const changed: Partial<PrestateAccount> = {};
      let modified = false;
      if (is.account.balance !== was.account.balance) {
        modified = true;
        changed.balance = is.account.balance;
      }
      if (is.account.nonce !== was.account.nonce) {
        modified = true;
        if (is.account.nonce !== undefined) changed.nonce = is.account.nonce;
      }
      if (is.account.code !== was.account.code) {
        modified = true;
        if (is.account.code !== undefined) changed.code = is.account.code;
      }
      const prior = { ...was.account, ...(was.account.storage ? { storage: { ...was.account.storage } } : {}) };
      for (const slot of slots) {
        const old = was.account.storage?.[slot];
        const now = is.account.storage?.[slot];
        // Unchanged slots leave both sides; a slot empty before is not in `pre`, as empty after not in `post`.
        if (old === now || old === ZERO_WORD) delete prior.storage?.[slot];
        if (old === now) continue;
        modified = true;
        if (now !== undefined && now !== ZERO_WORD) (changed.storage ??= {})[slot] = now;
      }
      if (prior.storage && Object.keys(prior.storage).length === 0) delete prior.storage;
      if (!modified) continue;
      if (was.exists) pre[address] = prior;
      if (is.exists) post[address] = changed;
    }
    this.answer = this.diffMode ? { post, pre } : pre;
  }

  result(_outcome: EvmOutcome): unknown {
    return this.answer;
  }
}
