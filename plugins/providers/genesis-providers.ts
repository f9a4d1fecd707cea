import { Value } from 'typebox/value';
import { isValidAddress, normalizeAddress } from '../../sdk/address.js';
import { formatAmountShort, parseAmount } from '../../sdk/amount.js';
import { encode } from '../../sdk/encoding.js';
import { GenesisError } from '../../chain/genesis.js';
import type { GenesisParameters } from '../../chain/contract.js';
import { indexKey, recordKey, type ProviderKind, type ProviderRecord } from './registry.js';

/** One provider of a genesis file's `"providers": { "<purpose>": [...] }`, registered in block 0. */
export interface GenesisProvider {
  readonly operator: string;
  /** The libp2p peer id of the node that does its work (what a registration records). */
  readonly peerId: string;
  /** OGT, a decimal token string (e.g. "1000"). */
  readonly bond: string;
  readonly details: Record<string, unknown>;
}

/**
 * A genesis file's providers of one purpose (`"providers": { "compute": [...], "storage": [...] }`):
 * each becomes a registration of block 0, as if its `<plugin>.register` had run before the chain
 * began. Its bond must be its account's `bonded.<purpose>` in the genesis accounts, so the OGT supply
 * counts it once.
 */
export function genesisProviderEntries(
  kind: ProviderKind,
  { params, accounts }: GenesisParameters,
): [string, Uint8Array][] {
  const all = params.providers as Record<string, unknown> | undefined;
  const listed = all?.[kind.purpose];
  if (listed === undefined) return [];
  const where = `genesis "providers.${kind.purpose}"`;
  const bad = (what: string): never => {
    throw new GenesisError(`${where}${what}`);
  };
  if (!Array.isArray(listed)) bad(' must be an array of { operator, peerId, bond, details }');
  const entries: [string, Uint8Array][] = [];
  const operators: string[] = [];
  for (const [i, raw] of (listed as Partial<Record<keyof GenesisProvider, unknown>>[]).entries()) {
    const at = `[${i}]`;
    if (typeof raw !== 'object' || raw === null) bad(`${at} must be an object`);
    if (!isValidAddress(raw.operator)) bad(`${at}.operator must be an svc1 address`);
    const operator = normalizeAddress(raw.operator as string);
    if (operators.includes(operator)) bad(`${at}: ${operator} is listed twice`);
    if (typeof raw.peerId !== 'string' || raw.peerId.length === 0 || raw.peerId.length > 128)
      bad(`${at}.peerId must be the libp2p peer id of the provider's node`);
    let bond = 0n;
    try {
      bond = parseAmount(String(raw.bond));
    } catch (error) {
      bad(`${at}.bond: ${(error as Error).message}`);
    }
    if (bond < kind.minimumBond)
      bad(
        `${at}.bond is ${formatAmountShort(bond)} OGT: a ${kind.purpose} bond is at least ${formatAmountShort(kind.minimumBond)} OGT`,
      );
    if (!Value.Check(kind.details, raw.details)) {
      const first = Value.Errors(kind.details, raw.details)[0];
      bad(`${at}.details${first?.instancePath ?? ''}: ${first?.message ?? 'does not match the registration details'}`);
    }
    const bonded = accounts.find((a) => a.address === operator)?.bonded?.[kind.purpose] ?? 0n;
    if (bonded !== bond)
      bad(
        `${at}: its account must have "bonded": { "${kind.purpose}": "${formatAmountShort(bond)}" } in the genesis accounts (it has ${formatAmountShort(bonded)} OGT bonded for ${kind.purpose})`,
      );
    const record: ProviderRecord = {
      operator,
      peerId: raw.peerId as string,
      bond: bond.toString(),
      details: raw.details as Record<string, unknown>,
      registeredAt: 0,
    };
    entries.push([recordKey(kind, operator), encode(record)]);
    operators.push(operator);
  }
  if (operators.length > 0) entries.push([indexKey(kind), encode(operators.sort())]);
  return entries;
}
