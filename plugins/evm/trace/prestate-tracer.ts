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

/**
 * geth's `prestateTracer` (its default mode): every account the run touches — its sender and
 * recipient, and what SLOAD, SSTORE, BALANCE, EXTCODE*, the CALL family and SELFDESTRUCT reach —
 * as it was before the run: balance, nonce, code and the slots the run touched.
 */
export class PrestateTracer implements Tracer {
  private readonly touches = new AccessListTracer(() => false);
  private answer: Record<string, PrestateAccount> = {};

  attach(evm: EVMInterface): () => void {
    return this.touches.attach(evm);
  }

  async settle(before: (key: string) => Promise<Uint8Array | undefined>, run: TracedRun): Promise<void> {
    const accounts = new Map(this.touches.touchedAccounts);
    for (const address of [run.from, run.to])
      if (address && !accounts.has(address.toLowerCase())) accounts.set(address.toLowerCase(), new Set());
    const answer: Record<string, PrestateAccount> = {};
    for (const [address, slots] of accounts) {
      const hex40 = address.slice(2);
      const account = decodeAccount(await before(accountKey(addressOfHex(address))));
      const contract = decodeContract(await before(contractKey(hex40)));
      const code = contract ? await before(codeKey(toHex(contract.codeHash).slice(2))) : undefined;
      const entry: PrestateAccount = { balance: `0x${account.omc.toString(16)}` };
      if (account.nonce > 0n) entry.nonce = Number(account.nonce);
      if (code && code.length > 0) entry.code = toHex(code);
      if (slots.size > 0) {
        entry.storage = {};
        for (const slot of slots) entry.storage[slot] = word(await before(storageKey(hex40, slot.slice(2))));
      }
      answer[address] = entry;
    }
    this.answer = answer;
  }

  result(_outcome: EvmOutcome): Record<string, PrestateAccount> {
    return this.answer;
  }
}
