import { describe, expect, it } from 'vitest';
import { parseRange } from '../../objects/range.js';

describe('byte ranges', () => {
  it('reads a-b, a- and -n, clipping the end to the object', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ kind: 'partial', start: 0, end: 9 });
    expect(parseRange('bytes=90-200', 100)).toEqual({ kind: 'partial', start: 90, end: 99 });
    expect(parseRange('bytes=42-', 100)).toEqual({ kind: 'partial', start: 42, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ kind: 'partial', start: 90, end: 99 });
    expect(parseRange('bytes=-1000', 100)).toEqual({ kind: 'partial', start: 0, end: 99 });
  });

  it('is unsatisfiable from past the end, for a zero suffix, and for any range of an empty object', () => {
    expect(parseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=150-160', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
  });

  it('ignores what it does not serve as a range (the whole object goes): other units, several ranges, bad syntax', () => {
    for (const header of [
      undefined,
      '',
      'items=0-1',
      'bytes=0-1,5-6',
      'bytes=5-2',
      'bytes=a-b',
      'bytes=-',
      'bytes 0-1',
    ])
      expect(parseRange(header, 100)).toEqual({ kind: 'full' });
  });
});
