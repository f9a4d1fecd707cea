import Type from 'typebox';

/** An Ethereum JSON-RPC quantity: `0x` + hex without leading zeros (`0x0` for zero). */
export type Quantity = `0x${string}`;

export const qty = (value: bigint | number): Quantity => `0x${value.toString(16)}`;

export const QuantitySchema = Type.String({ pattern: '^0x[0-9a-fA-F]{1,64}$', description: 'a hex quantity' });
export const DataSchema = Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', description: 'hex bytes' });
export const Hash32Schema = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'a 32-byte hash' });
export const EthAddressSchema = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'a 0x address (EIP-55 checksum checked when mixed-case)',
});
/** Results are Ethereum's shapes: described in docs/contracts.md, not checked one field at a time. */
export const EthResult = (description: string) => Type.Unsafe<unknown>({ description });
