import { fromHex } from '../sdk/bytes.js';
import {
  isValidAddress,
  normalizeAddress,
  type Address,
  isValidEthAddress,
  accountAddress,
  addressOfBytes,
  hexOfAddress,
} from '../sdk/address.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import { readU64Key, writeU32, writeU64 } from '../kernel/storage/keys.js';
import type { Codec } from '../kernel/storage/codec.js';

/** An account's place in a block: the transaction at `index` of block `height` concerns `address`. */
export interface AccountTransaction {
  readonly address: Address;
  readonly height: number;
  readonly index: number;
}

const ADDRESS_BYTES = 20;
const addressBytes = (address: string): Uint8Array => fromHex(hexOfAddress(address));

/** `20-byte address ‖ u64 height ‖ u32 index`: an account's transactions sort together, oldest first. */
export const accountTransactionKey: Codec<AccountTransaction> & {
  of(address: string): Uint8Array;
  before(address: string, height: number, index: number): Uint8Array;
} = {
  layout: '20-byte address ‖ u64 height ‖ u32 index in the block',
  encode: ({ address, height, index }) => {
    const key = new Uint8Array(ADDRESS_BYTES + 12);
    key.set(addressBytes(address));
    writeU64(key, ADDRESS_BYTES, height);
    writeU32(key, ADDRESS_BYTES + 8, index);
    return key;
  },
  decode: (bytes) => ({
    address: addressOfBytes(bytes.subarray(0, ADDRESS_BYTES)),
    height: Number(readU64Key(bytes, ADDRESS_BYTES)),
    index: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(ADDRESS_BYTES + 8),
  }),
  /** The prefix of every entry of `address`. */
  of: (address) => addressBytes(address),
  /** The key an account's listing continues below (newest first): the entries before this position. */
  before: (address, height, index) =>
    accountTransactionKey.encode({ address: normalizeAddress(address), height, index }),
};

/** How deep into a payload addresses are looked for (a deal's providers sit in a list). */
const MAX_DEPTH = 3;

/**
 * The accounts a transaction concerns: its signer, the contract it created (from its receipt), and
 * every account its payload names, svc1… or 0x… (a transfer's recipient, a faucet grant's address, a
 * deal's providers, an Ethereum transaction's `to`). Each once, signer first.
 */
export function accountsOf(
  tx: Pick<SignedTransaction, 'from' | 'payload'>,
  receipt?: { readonly contractAddress?: string | undefined },
): Address[] {
  const found = new Set<Address>([normalizeAddress(tx.from)]);
  // The contract a creation made is named by its receipt only: its first transaction is its creation.
  if (receipt?.contractAddress) found.add(normalizeAddress(receipt.contractAddress));
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === 'string') {
      if (isValidAddress(value) || isValidEthAddress(value)) found.add(accountAddress(value));
    } else if (depth < MAX_DEPTH && value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
      for (const item of Array.isArray(value) ? value : Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(tx.payload, 0);
  return [...found];
}
