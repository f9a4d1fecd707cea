import { isValidAddress, normalizeAddress } from '../../sdk/address.js';
import { formatAmountShort, parseAmount } from '../../sdk/amount.js';
import { encode } from '../../sdk/encoding.js';
import { GenesisError } from '../../chain/genesis.js';
import type { GenesisParameters } from '../../chain/contract.js';
import { nextSet, type Validator } from '../../consensus/validator-set.js';
import { GENESIS_VALIDATOR_POWER, STAKE_RANGE } from './params.js';
import { consensusKeyIndex, writeOperators, writeSet, writeValidator } from './state.js';

/** One entry of a genesis file's `"validators"`: in the set from block 1, its stake already bonded. */
export interface GenesisValidator {
  readonly operator: string;
  readonly consensusKey: string;
  /** OGT, a decimal token string (e.g. "20"). */
  readonly stake: string;
  readonly moniker: string;
}

/**
 * A genesis file's `"validators"` beside the genesis validator: each becomes an active validator
 * record of block 0, and the set in force from block 1 is the genesis validator's and theirs (stake as
 * power), as if they had staked before the chain began. Each one's stake must be its account's
 * `bonded.stake` in the genesis accounts, so the OGT supply counts it once.
 */
export function genesisValidatorEntries({
  params,
  validator,
  validatorKey,
  accounts,
}: GenesisParameters): [string, Uint8Array][] {
  if (params.validators === undefined) return [];
  const bad = (what: string): never => {
    throw new GenesisError(`genesis "validators"${what}`);
  };
  if (!Array.isArray(params.validators) || params.validators.length === 0)
    bad(' must be a non-empty array of { operator, consensusKey, stake, moniker }');
  const entries = new Map<string, Uint8Array>();
  const write = (key: string, value: Uint8Array | undefined): void => void (value && entries.set(key, value));
  const members: Validator[] = [{ operator: validator, consensusKey: validatorKey, power: GENESIS_VALIDATOR_POWER }];
  const operators: string[] = [];
  for (const [i, raw] of (params.validators as Partial<Record<keyof GenesisValidator, unknown>>[]).entries()) {
    const at = `[${i}]`;
    if (typeof raw !== 'object' || raw === null) bad(`${at} must be an object`);
    if (!isValidAddress(raw.operator)) bad(`${at}.operator must be an svc1 address`);
    const operator = normalizeAddress(raw.operator as string);
    if (typeof raw.consensusKey !== 'string' || !/^0x[0-9a-f]{64}$/.test(raw.consensusKey))
      bad(`${at}.consensusKey must be a 32-byte lowercase 0x hex Ed25519 public key`);
    const consensusKey = raw.consensusKey as string;
    if (typeof raw.moniker !== 'string' || raw.moniker.length === 0 || raw.moniker.length > 64)
      bad(`${at}.moniker must be 1 to 64 characters`);
    let stake = 0n;
    try {
      stake = parseAmount(String(raw.stake));
    } catch (error) {
      bad(`${at}.stake: ${(error as Error).message}`);
    }
    if (stake < STAKE_RANGE.minimum || stake > STAKE_RANGE.maximum)
      bad(
        `${at}.stake is ${formatAmountShort(stake)} OGT: a validator's stake is ${formatAmountShort(STAKE_RANGE.minimum)} to ${formatAmountShort(STAKE_RANGE.maximum)} OGT`,
      );
    if (members.some((m) => m.operator === operator)) bad(`${at}: ${operator} is already a validator of the genesis`);
    if (members.some((m) => m.consensusKey === consensusKey))
      bad(`${at}: the consensus key ${consensusKey} is another validator's`);
    const bonded = accounts.find((a) => a.address === operator)?.bonded?.stake ?? 0n;
    if (bonded !== stake)
      bad(
        `${at}: its account must have "bonded": { "stake": "${formatAmountShort(stake)}" } in the genesis accounts (it has ${formatAmountShort(bonded)} OGT bonded as stake)`,
      );
    writeValidator(write, {
      operator,
      consensusKey,
      moniker: raw.moniker as string,
      stake: stake.toString(),
      status: 'active',
      createdAt: 0,
      joinedAt: 0,
    });
    write(consensusKeyIndex(consensusKey), encode(operator));
    members.push({ operator, consensusKey, power: stake });
    operators.push(operator);
  }
  writeOperators(write, operators);
  const set = nextSet([], members);
  writeSet(write, 0, set, set);
  return [...entries];
}
