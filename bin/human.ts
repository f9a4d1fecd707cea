import { formatAmountShort, formatGwei as gwei } from '../sdk/amount.js';

/** A value on one line for a person: scalars as they are, lists and records inline. */
function inline(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) {
    if (value.length === 0) return 'none';
    const items = value.map(inline);
    return items.length > 6 ? `${items.length}: ${items.slice(0, 3).join(', ')}, … ${items.at(-1)}` : items.join(', ');
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length === 0 ? 'none' : entries.map(([key, v]) => `${key} ${inline(v)}`).join(', ');
  }
  return String(value);
}

/** A record as aligned `key  value` lines: the human form of blocks, transactions, receipts and infos. */
export function describeRecord(record: object): string {
  const entries = Object.entries(record as Record<string, unknown>);
  const width = Math.max(...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${key.padEnd(width)}  ${inline(value)}`).join('\n');
}

interface ReceiptLike {
  gasUsed?: number;
  effectiveGasPrice?: string;
  logs?: readonly { address: string; topics: readonly string[]; data: string }[];
}

/**
 * A receipt for a person: its fields aligned, an EVM transaction's price in gwei with the fee it paid
 * in OMC, and each log on lines of its own (emitter, topics, data) rather than run together.
 */
export function describeReceipt<R extends ReceiptLike>(receipt: R): string {
  const { effectiveGasPrice, logs, ...rest } = receipt;
  const fields: Record<string, unknown> = { ...rest };
  if (effectiveGasPrice !== undefined) {
    const price = BigInt(effectiveGasPrice);
    fields.effectiveGasPrice = `${gwei(price)} gwei`;
    if (receipt.gasUsed !== undefined)
      fields.fee = `${formatAmountShort(BigInt(receipt.gasUsed) * price)} OMC (${receipt.gasUsed} gas × ${gwei(price)} gwei)`;
  }
  if (logs !== undefined) fields.logs = logs.length;
  const lines = [describeRecord(fields)];
  for (const [i, log] of (logs ?? []).entries()) {
    lines.push(`log ${i}  ${log.address}`);
    for (const [t, topic] of log.topics.entries()) lines.push(`  topic ${t}  ${topic}`);
    lines.push(`  data     ${log.data === '0x' ? '(none)' : log.data}`);
  }
  return lines.join('\n');
}
