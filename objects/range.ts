/** What a `Range` header asks of an object of `size` bytes. */
export type RangeAnswer =
  | { readonly kind: 'full' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

/**
 * One byte range (RFC 9110): `a-b`, `a-` or the suffix `-n`. A header we don't serve as a range —
 * another unit, several ranges, bad syntax — is ignored and the whole object sent, as the RFC
 * allows; a range that starts past the end is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'full' };
  const match = SINGLE.exec(header.trim());
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}
