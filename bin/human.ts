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
