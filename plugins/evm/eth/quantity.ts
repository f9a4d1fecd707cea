import Type from 'typebox';
import { isValidEthAddress } from '../../../sdk/address.js';

/** An Ethereum JSON-RPC quantity: `0x` + hex without leading zeros (`0x0` for zero). */
export type Quantity = `0x${string}`;

export const qty = (value: bigint | number): Quantity => `0x${value.toString(16)}`;

export const QuantitySchema = Type.String({ pattern: '^0x[0-9a-fA-F]{1,64}$', description: 'a hex quantity' });
export const DataSchema = Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', description: 'hex bytes' });
export const Hash32Schema = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'a 32-byte hash' });
/** A mixed-case address whose EIP-55 checksum is wrong is a typo: refused as a bad parameter, as geth refuses it. */
export const EthAddressSchema = Type.Refine(
  Type.String({
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'a 0x address (EIP-55 checksum checked when mixed-case)',
  }),
  isValidEthAddress,
  () => 'has a wrong EIP-55 checksum (a mixed-case address must match it; all lower or upper case is not checked)',
);
/** Results are Ethereum's shapes: described in docs/contracts.md, not checked one field at a time. */
export const EthResult = (description: string) => Type.Unsafe<unknown>({ description });
