import type { Address } from '../../sdk/address.js';
import { decode, encode } from '../../sdk/encoding.js';

/**
 * The EVM's part of the world state, under the `evm/` prefix (balances and nonces are the accounts'
 * own OMC and nonce, in `accounts/<address>`):
 *
 * - `evm/contract/<40 hex>` -> CBOR { codeHash, creator, createdAt, storage? }: an account with code
 *   (or one whose constructor wrote storage); `storage` once any slot was set.
 * - `evm/code/<64 hex code hash>` -> the bytecode, shared by every contract with the same code.
 * - `evm/storage/<40 hex>/<64 hex slot>` -> the slot's value without leading zero bytes (a zero
 *   value is no key).
 *
 * Every key is committed by the state root, kept by height in the history window (all of it on an
 * archive) and pruned like the rest of the state.
 */
export interface ContractRecord {
  /** Keccak-256 of the code (32 bytes). */
  readonly codeHash: Uint8Array;
  /** The sender of the transaction that created it. */
  readonly creator: Address;
  /** The block it was created in. */
  readonly createdAt: number;
  /** Whether any storage slot was ever set (what EIP-7610's collision check asks). */
  readonly storage?: true;
}

export const contractKey = (hex40: string): string => `evm/contract/${hex40}`;
export const codeKey = (codeHashHex64: string): string => `evm/code/${codeHashHex64}`;
export const storageKey = (hex40: string, slotHex64: string): string => `evm/storage/${hex40}/${slotHex64}`;
export const storagePrefix = (hex40: string): string => `evm/storage/${hex40}/`;

export function encodeContract(record: ContractRecord): Uint8Array {
  return encode(
    record.storage
      ? { codeHash: record.codeHash, creator: record.creator, createdAt: record.createdAt, storage: true }
      : { codeHash: record.codeHash, creator: record.creator, createdAt: record.createdAt },
  );
}

export function decodeContract(bytes: Uint8Array | undefined): ContractRecord | undefined {
  return bytes ? decode<ContractRecord>(bytes) : undefined;
}
