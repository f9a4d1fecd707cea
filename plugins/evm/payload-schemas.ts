import Type from 'typebox';
import { MAX_TRANSACTION_GAS } from '../../sdk/transaction.js';

/** The pieces of the EVM's native payloads (`evm.create`, `evm.call`, and dev mode's kinds). */
export const Units = (description: string) => Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$', description });
export const HexBytes = (maxBytes: number, description: string) =>
  Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 2 + 2 * maxBytes, description });
export const GasLimit = Type.Integer({
  minimum: 21_000,
  maximum: MAX_TRANSACTION_GAS,
  description: 'the most gas it may use (at most 2^24: EIP-7825)',
});
export const Fees = {
  maxFeePerGas: Type.Optional(Units('the most it pays per gas, in OMC base units (default: the base fee)')),
  maxPriorityFeePerGas: Type.Optional(Units('of which at most this much goes to the proposer (default 0)')),
};
/** Calldata of a call: the most one block could carry at 16 gas per byte. */
export const MAX_CALLDATA_BYTES = 1_000_000;
