import Type, { type Static } from 'typebox';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { accountAddress } from '../../../sdk/address.js';
import { fromHex, toHex } from '../../../sdk/bytes.js';
import { accountKey, decodeAccount, encodeAccount } from '../../../chain/state/accounts.js';
import { codeKey, contractKey, decodeContract, encodeContract, storageKey, storagePrefix } from '../state.js';
import type { StateRead } from '../state-manager.js';

const Slot = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' });
const Word = Type.String({ pattern: '^0x[0-9a-fA-F]{1,64}$' });

/** eth_call's third parameter (geth's state override set): per address, balance, nonce, code, and all (`state`) or some (`stateDiff`) storage. */
export const StateOverridesSchema = Type.Record(
  Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
  Type.Object(
    {
      balance: Type.Optional(Word),
      nonce: Type.Optional(Word),
      code: Type.Optional(Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$' })),
      state: Type.Optional(Type.Record(Slot, Word)),
      stateDiff: Type.Optional(Type.Record(Slot, Word)),
    },
    { additionalProperties: false },
  ),
);
export type StateOverrides = Static<typeof StateOverridesSchema>;

const word = (value: string): Uint8Array | undefined => {
  const n = BigInt(value);
  return n === 0n ? undefined : fromHex(`0x${n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0')}`);
};

/** A state reader with a call's overrides laid over `base` (nothing is written anywhere). */
export async function withOverrides(base: StateRead, overrides: StateOverrides | undefined): Promise<StateRead> {
  if (!overrides || Object.keys(overrides).length === 0) return base;
  const values = new Map<string, Uint8Array | undefined>();
  const replaced = new Set<string>();
  for (const [raw, override] of Object.entries(overrides)) {
    const address = accountAddress(raw);
    const hex40 = address.slice(4);
    if (override.state && override.stateDiff)
      throw new Error(`state override of ${raw}: give "state" or "stateDiff", not both`);
    if (override.balance !== undefined || override.nonce !== undefined) {
      const account = decodeAccount(await base(accountKey(address)));
      if (override.balance !== undefined) account.omc = BigInt(override.balance);
      if (override.nonce !== undefined) account.nonce = BigInt(override.nonce);
      values.set(accountKey(address), encodeAccount(account));
    }
    const contract = decodeContract(await base(contractKey(hex40)));
    if (override.code !== undefined) {
      const code = fromHex(override.code);
      const codeHash = keccak_256(code);
      values.set(codeKey(toHex(codeHash).slice(2)), code);
      values.set(
        contractKey(hex40),
        encodeContract({
          codeHash,
          creator: contract?.creator ?? address,
          createdAt: contract?.createdAt ?? 0,
          storage: true,
        }),
      );
      if (!values.has(accountKey(address)))
        values.set(accountKey(address), encodeAccount(decodeAccount(await base(accountKey(address)))));
    }
    if (override.state) replaced.add(storagePrefix(hex40));
    for (const [slot, value] of Object.entries(override.state ?? override.stateDiff ?? {}))
      values.set(storageKey(hex40, slot.slice(2).toLowerCase()), word(value));
  }
  return (key) => {
    if (values.has(key)) return values.get(key);
    for (const prefix of replaced) if (key.startsWith(prefix)) return undefined;
    return base(key);
  };
}
