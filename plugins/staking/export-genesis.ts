import type { ExportPoint } from '../../chain/contract.js';
import { accountKey, decodeAccount, encodeAccount } from '../../chain/state/accounts.js';
import type { Address } from '../../sdk/address.js';
import { readOperators, readValidator } from './state.js';

/**
 * Staking in a network made from an export. With the same validators (`export-state` then `start
 * --genesis`), everything is carried: records, the set, jailing. With validators of its own (`init
 * --from-state`), the old validators get back the stake bonded in their accounts (unbonding ones too,
 * at once) and leave no record, set or standing behind: the new network's set comes from its genesis,
 * and an old validator may stake again there.
 */
export function stakingExportGenesis(state: Map<string, Uint8Array>, from: ExportPoint): void {
  if (!from.newValidators) return;
  const read = (key: string): Uint8Array | undefined => state.get(key);
  for (const operator of readOperators(read)) {
    if (!readValidator(read, operator)) continue;
    const key = accountKey(operator as Address);
    const account = decodeAccount(state.get(key));
    const stake = account.bonded.stake ?? 0n;
    if (stake === 0n) continue;
    account.ogt += stake;
    account.bonded.stake = 0n;
    state.set(key, encodeAccount(account));
  }
  for (const key of [...state.keys()]) if (key.startsWith('staking/')) state.delete(key);
}
