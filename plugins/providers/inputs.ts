import Type from 'typebox';
import { amountFromNumber, decimalAmountPattern, parseAmount } from '../../sdk/amount.js';
import { canonicalAddressPattern } from '../../sdk/address.js';
import { domainError } from '../../sdk/errors.js';

/** `bond_ogt`: a JSON number or a decimal string of OGT (at most 18 fractional digits). */
export const BondOgtSchema = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: decimalAmountPattern })], {
  description:
    'OGT to bond: a number or a decimal string, at most 18 fractional digits; converted from its decimal text, never through floating point',
});

/** OGT base units of a `bond_ogt` value; `invalid_params` naming the field when it can't be one. */
export function bondUnits(value: number | string): bigint {
  try {
    return typeof value === 'number' ? amountFromNumber(value) : parseAmount(value);
  } catch (error) {
    throw domainError('invalid_params', `bond_ogt: ${(error as Error).message}`, { field: 'bond_ogt' });
  }
}

/** A positive JSON number as the decimal text chain state keeps (no floats in consensus data). */
export function decimalText(value: number, field: string): string {
  const text = String(value);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text))
    throw domainError('invalid_params', `${field}: ${text} is not a plain decimal number`, { field });
  return text;
}

/** What every registration answer carries, whatever the capability. */
export const RegistrationBaseSchema = {
  registered: Type.Boolean({ description: 'true from submission on (pending or active, unbonding included)' }),
  status: Type.Union(
    [Type.Literal('unregistered'), Type.Literal('pending'), Type.Literal('active'), Type.Literal('unbonding')],
    {
      description:
        'unregistered, pending (bond not in a block yet), active, or unbonding (releaseAt says when the bond returns)',
    },
  ),
  operator: Type.Union([Type.String({ pattern: canonicalAddressPattern }), Type.Null()]),
  bond_ogt: Type.String({ description: 'bonded OGT, decimal ("0" when unregistered)' }),
  peerId: Type.Union([Type.String(), Type.Null()]),
  txHash: Type.Union([Type.String(), Type.Null()], { description: 'the registration transaction' }),
  unregisterTxHash: Type.Union([Type.String(), Type.Null()], {
    description: 'the unregistration transaction, once this node sent one',
  }),
  releaseAt: Type.Union([Type.Integer(), Type.Null()], {
    description: 'while unbonding: the block at which the bond returns',
  }),
};
