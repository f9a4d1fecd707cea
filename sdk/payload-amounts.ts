import { formatAmountShort, formatGwei, type Asset } from './amount.js';

/**
 * Which fields of the first-party transaction kinds' payloads are amounts in base units, and of what
 * asset (for a transfer, its `asset` field says); and which are prices per gas, read in gwei.
 */
const GAS_PRICES = { maxFeePerGas: 'gwei', maxPriorityFeePerGas: 'gwei' } as const;
const AMOUNT_FIELDS: Readonly<Record<string, Readonly<Record<string, Asset | 'asset field' | 'gwei'>>>> = {
  transfer: { amount: 'asset field' },
  'faucet.mint': { omc: 'OMC', ogt: 'OGT' },
  'staking.createValidator': { stake: 'OGT' },
  'staking.addStake': { amount: 'OGT' },
  'oon.register': { bond: 'OGT' },
  'omp.register': { bond: 'OGT' },
  'omp.createDeal': { price: 'OMC' },
  'evm.create': { value: 'OMC', ...GAS_PRICES },
  'evm.call': { value: 'OMC', ...GAS_PRICES },
  'evm.ethereum': { value: 'OMC', ...GAS_PRICES },
};

/**
 * A payload as a person reads it: each amount in tokens with its asset (`"1.5 OMC"`), each price per
 * gas in gwei (`"1.5 gwei"`), everything else as it is. What a program reads (`--json`, the RPC) keeps base units.
 */
export function payloadInTokens(kind: string, payload: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields = AMOUNT_FIELDS[kind];
  if (!fields) return { ...payload };
  const shown: Record<string, unknown> = { ...payload };
  for (const [field, asset] of Object.entries(fields)) {
    const value = payload[field];
    if (typeof value !== 'string' || !/^[0-9]{1,78}$/.test(value)) continue;
    if (asset === 'gwei') {
      shown[field] = `${formatGwei(BigInt(value))} gwei`;
      continue;
    }
    const unit = asset === 'asset field' ? String(payload.asset ?? '') : asset;
    shown[field] = `${formatAmountShort(BigInt(value))} ${unit}`.trim();
  }
  return shown;
}
