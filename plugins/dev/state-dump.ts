import { gunzipSync, gzipSync } from 'node:zlib';
import { toHex } from '../../sdk/bytes.js';
import { addressOfHex, hexOfAddress, type Address } from '../../sdk/address.js';
import { decodeAccount } from '../../chain/state/accounts.js';
import { type DevSet, nonceField } from '../evm/dev-edits.js';
import { codeKey, contractKey, decodeContract, storageKey } from '../evm/state.js';

/** What a dump reads: every key under a prefix, and one key (the head's state). */
export interface DumpSource {
  entriesUnder(prefix: string): Iterable<[string, Uint8Array]>;
  get(key: string): Uint8Array | undefined;
}

/** One account of a dump, in Anvil's record shape (`ogt` is svc-node's own; Anvil ignores it). */
export interface DumpedAccount {
  /** A number as Anvil writes it; above 2^53 − 1, where a JSON number read here would not be exact, hex. */
  readonly nonce: number | string;
  /** OMC in base units (wei), hex. */
  readonly balance: string;
  readonly code: string;
  /** 32-byte slot -> 32-byte value, hex. */
  readonly storage: Readonly<Record<string, string>>;
  /** OGT in base units, hex. */
  readonly ogt?: string;
}

/** The head block's environment in Anvil's `BlockEnv` shape (Anvil requires it to load a dump). */
export interface DumpedBlock {
  readonly number: string;
  readonly beneficiary: string;
  readonly timestamp: string;
  readonly gas_limit: number;
  readonly basefee: number;
  readonly difficulty: string;
  readonly prevrandao: string;
  readonly blob_excess_gas_and_price: { readonly excess_blob_gas: number; readonly blob_gasprice: number };
}

/** A dump: Anvil's `SerializableState` (the head's environment, accounts, the head's number), as `anvil_dumpState` gives it. */
export interface StateDump {
  readonly block: DumpedBlock;
  readonly accounts: Readonly<Record<string, DumpedAccount>>;
  readonly best_block_number: number;
  readonly blocks: readonly never[];
  readonly transactions: readonly never[];
}

/** What a dump says of the head block. */
export interface DumpHead {
  readonly height: number;
  /** Unix ms. */
  readonly timestamp: number;
  readonly proposer: Address;
  readonly parentHash: string;
  readonly gasLimit: number;
  readonly baseFee: bigint;
}

/** The most slots one state edit sets (its payload's limit). */
const SLOTS_PER_EDIT = 1_000;
const qty = (value: bigint | number): string => `0x${value.toString(16)}`;
const word = (hex: string): string => `0x${hex.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`;

/**
 * The state a contract's tests care about, at the head: every account's OMC, OGT and nonce, every
 * contract's code and storage — in Anvil's dump format, so a dump loads into Anvil and an Anvil dump
 * into dev mode. Jobs, deals, stakes and the rest of the chain's own state are not in it: they belong
 * to providers and validators a fresh node does not have.
 */
export function dumpState(state: DumpSource, head: DumpHead): StateDump {
  const accounts = new Map<
    string,
    { nonce: bigint; balance: bigint; ogt: bigint; code: string; storage: Record<string, string> }
  >();
  const entry = (hex: string) => {
    let found = accounts.get(hex);
    if (!found) {
      found = { nonce: 0n, balance: 0n, ogt: 0n, code: '0x', storage: {} };
      accounts.set(hex, found);
    }
    return found;
  };
  for (const [key, raw] of state.entriesUnder('accounts/')) {
    const account = decodeAccount(raw);
    const record = entry(hexOfAddress(key.slice('accounts/'.length) as Address));
    record.nonce = account.nonce;
    record.balance = account.omc;
    record.ogt = account.ogt;
  }
  for (const [key, raw] of state.entriesUnder('evm/contract/')) {
    const hex40 = key.slice('evm/contract/'.length);
    const contract = decodeContract(raw)!;
    const code = state.get(codeKey(toHex(contract.codeHash).slice(2)));
    entry(`0x${hex40}`).code = code ? toHex(code) : '0x';
  }
  for (const [key, raw] of state.entriesUnder('evm/storage/')) {
    const [hex40, slot] = key.slice('evm/storage/'.length).split('/') as [string, string];
    entry(`0x${hex40}`).storage[word(slot)] = word(toHex(raw));
  }
  return {
    block: {
      number: qty(head.height),
      beneficiary: hexOfAddress(head.proposer),
      timestamp: qty(Math.floor(head.timestamp / 1000)),
      gas_limit: head.gasLimit,
      basefee: Number(head.baseFee),
      difficulty: '0x0',
      prevrandao: head.parentHash,
      blob_excess_gas_and_price: { excess_blob_gas: 0, blob_gasprice: 1 },
    },
    accounts: Object.fromEntries(
      [...accounts].map(([address, a]) => [
        address,
        {
          nonce: a.nonce <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(a.nonce) : qty(a.nonce),
          balance: qty(a.balance),
          code: a.code,
          storage: a.storage,
          ogt: qty(a.ogt),
        },
      ]),
    ),
    // The newest of the blocks the dump carries, which Anvil then looks for: it carries none (the
    // head's number is block.number).
    best_block_number: 0,
    blocks: [],
    transactions: [],
  };
}

/** A dump as `anvil_dumpState` answers it: gzipped JSON, hex. */
export const encodeDump = (dump: StateDump): string => toHex(gzipSync(JSON.stringify(dump)));

/** A dump from its bytes: gzipped or plain JSON (Anvil reads both); the reason when it is not one. */
export function decodeDump(bytes: Uint8Array): StateDump {
  let text: string;
  try {
    text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
  } catch (error) {
    throw new Error(`not a state dump: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('not a state dump: neither gzipped JSON nor JSON');
  }
  const accounts = (parsed as { accounts?: unknown } | null)?.accounts;
  if (typeof accounts !== 'object' || accounts === null || Array.isArray(accounts))
    throw new Error('not a state dump: it has no "accounts" object');
  for (const [address, record] of Object.entries(accounts)) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`state dump: "${address}" is not an address`);
    const r = record as Partial<Record<keyof DumpedAccount, unknown>>;
    const hexOk = (value: unknown) =>
      value === undefined || (typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value));
    const nonceOk =
      r.nonce === undefined ||
      (Number.isSafeInteger(r.nonce) && (r.nonce as number) >= 0) ||
      (hexOk(r.nonce) && BigInt(r.nonce as string) < 2n ** 64n);
    if (!nonceOk || !hexOk(r.balance) || !hexOk(r.code) || !hexOk(r.ogt))
      throw new Error(
        `state dump: the account ${address} has a nonce, balance, code or ogt that is not a number or hex`,
      );
    if (r.storage !== undefined && (typeof r.storage !== 'object' || r.storage === null))
      throw new Error(`state dump: the storage of ${address} is not an object`);
    for (const [slot, value] of Object.entries((r.storage as Record<string, unknown>) ?? {}))
      if (!hexOk(slot) || !hexOk(value) || slot.length > 66 || (value as string).length > 66)
        throw new Error(`state dump: storage slot ${slot} of ${address} is not a 32-byte hex word`);
  }
  return parsed as StateDump;
}

/**
 * The state edits that make `state` hold every account of the dump as the dump has it (as Anvil's
 * load: accounts and slots in the dump are overwritten, the others stay). Fields already equal are
 * left out, so loading a node's own dump edits nothing. `signer` (lowercase 0x) signs the edits: its
 * nonce is not set.
 */
export function editsFor(dump: StateDump, state: DumpSource, signer: string): DevSet[] {
  const edits: DevSet[] = [];
  for (const [rawAddress, record] of Object.entries(dump.accounts)) {
    const address = rawAddress.toLowerCase();
    const hex40 = address.slice(2);
    const current = decodeAccount(state.get(`accounts/${addressOfHex(address)}`));
    const edit: { -readonly [K in keyof DevSet]?: DevSet[K] } = {};
    const nonce = record.nonce === undefined ? undefined : BigInt(record.nonce);
    // The edits' signer keeps its own nonce: it counts the edits (and would break their sequence).
    if (nonce !== undefined && nonce !== current.nonce && address !== signer) edit.nonce = nonceField(nonce);
    if (record.balance !== undefined && BigInt(record.balance) !== current.omc)
      edit.balance = BigInt(record.balance).toString();
    if (record.ogt !== undefined && BigInt(record.ogt) !== current.ogt) edit.ogt = BigInt(record.ogt).toString();
    const contract = decodeContract(state.get(contractKey(hex40)));
    const code = contract ? toHex(state.get(codeKey(toHex(contract.codeHash).slice(2))) ?? new Uint8Array()) : '0x';
    if (record.code !== undefined && record.code.toLowerCase() !== code) edit.code = record.code.toLowerCase();
    const slots = Object.entries(record.storage ?? {})
      .map(([slot, value]) => ({ slot: word(slot), value: word(value) }))
      .filter(({ slot, value }) => {
        const held = state.get(storageKey(hex40, slot.slice(2)));
        return word(held ? toHex(held) : '0x') !== value;
      });
    const first = slots.splice(0, SLOTS_PER_EDIT);
    if (Object.keys(edit).length > 0 || first.length > 0)
      edits.push({ address, ...edit, ...(first.length > 0 ? { storage: first } : {}) });
    while (slots.length > 0) edits.push({ address, storage: slots.splice(0, SLOTS_PER_EDIT) });
  }
  return edits;
}
