/** Base units per token: amounts are integers of 10^-18 token. */
export const DECIMALS = 18;
export const UNIT = 10n ** 18n;

export const ASSETS = ['OMC', 'OGT'] as const;
export type Asset = (typeof ASSETS)[number];

/** Patterns (JSON-schema strings) of a token amount as decimal text, and of a count of base units. */
export const decimalAmountPattern = '^(0|[1-9][0-9]*)(\\.([0-9]{1,18}))?$';
export const unitsPattern = '^(0|[1-9][0-9]*)$';
const DECIMAL = new RegExp(decimalAmountPattern);
const INTEGER = new RegExp(unitsPattern);

/** "10.5" -> 10500000000000000000n. Up to 18 fractional digits; no signs, exponents or floats. */
export function parseAmount(text: string): bigint {
  const match = DECIMAL.exec(text.trim());
  if (!match) throw new RangeError(`not a decimal amount with at most 18 fractional digits: "${text}"`);
  const fraction = (match[3] ?? '').padEnd(DECIMALS, '0');
  return BigInt(match[1]!) * UNIT + BigInt(fraction);
}

/** A JSON number amount (e.g. `bond_ogt: 1000`) converted from its decimal text, never through float arithmetic. */
export function amountFromNumber(value: number): bigint {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`not a non-negative amount: ${value}`);
  // String(value) is the shortest round-trip decimal text of the number the JSON held.
  const text = String(value);
  if (/e/i.test(text)) {
    const [mantissa, exponent] = text.toLowerCase().split('e');
    return shiftDecimal(mantissa!, Number(exponent));
  }
  return parseAmount(text);
}

function shiftDecimal(mantissa: string, exponent: number): bigint {
  const [whole, fraction = ''] = mantissa.split('.');
  const digits = `${whole}${fraction}`;
  const point = whole!.length + exponent;
  if (point <= 0) return parseAmount(`0.${'0'.repeat(-point)}${digits}`);
  if (point >= digits.length)
    return parseAmount(`${digits}${'0'.repeat(point - digits.length)}`.replace(/^0+(?=\d)/, ''));
  return parseAmount(`${digits.slice(0, point)}.${digits.slice(point)}`.replace(/^0+(?=\d)/, ''));
}

/** 10500000000000000000n -> "10.500000000000000000" (always 18 fractional digits). */
export function formatAmount(units: bigint): string {
  if (units < 0n) throw new RangeError('amounts are never negative');
  const whole = units / UNIT;
  const fraction = (units % UNIT).toString().padStart(DECIMALS, '0');
  return `${whole}.${fraction}`;
}

/** 10000000000000000000n -> "10", 10500000000000000000n -> "10.5" (no trailing zeros). */
export function formatAmountShort(units: bigint): string {
  const full = formatAmount(units);
  return full.replace(/\.?0+$/, '');
}

const GWEI = 1_000_000_000n;

/** Base units per gas as gwei, exact: 1000000000n -> "1", 1500000000n -> "1.5", 1n -> "0.000000001". */
export function formatGwei(units: bigint): string {
  const fraction = (units % GWEI).toString().padStart(9, '0').replace(/0+$/, '');
  return `${units / GWEI}${fraction ? `.${fraction}` : ''}`;
}

/** Base units as the wire's decimal integer string; throws on anything else. */
export function parseUnits(text: string): bigint {
  if (typeof text !== 'string' || !INTEGER.test(text))
    throw new RangeError(`not a decimal integer of base units: "${String(text)}"`);
  return BigInt(text);
}
