import { describe, expect, it } from 'vitest';
import { REPORT_BYTES, reportParts, type ReportItem } from '../../../plugins/compute/report-parts.js';
import { MAX_REPORT_ITEMS } from '../../../plugins/oon/jobs/tx-kinds.js';

const id = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
const commit = (n: number): ReportItem => ({ jobId: id(n), commitment: id(1000 + n) });
const reveal = (n: number, outputHexChars = 2): ReportItem => ({
  jobId: id(n),
  output: `0x${'ab'.repeat(outputHexChars / 2)}`,
});

describe('splitting a turn into reports', () => {
  it('sends a turn of a few jobs as one report', () => {
    const parts = reportParts([commit(1), commit(2)], [reveal(1), reveal(2), reveal(3)]);
    expect(parts).toEqual([{ commits: [commit(1), commit(2)], reveals: [reveal(1), reveal(2), reveal(3)] }]);
  });

  it('keeps each list within the item limit and never puts a reveal before the part with its commitment', () => {
    const n = MAX_REPORT_ITEMS + 5;
    const all = Array.from({ length: n }, (_, i) => i);
    const parts = reportParts(
      all.map(commit),
      all.map((i) => reveal(i)),
    );
    expect(parts.length).toBe(2);
    for (const part of parts)
      expect(part.commits.length <= MAX_REPORT_ITEMS && part.reveals.length <= MAX_REPORT_ITEMS).toBe(true);
    expect(parts[0]!.reveals.map((r) => r.jobId)).toEqual(all.slice(0, MAX_REPORT_ITEMS).map(id));
    // The last 5 commitments go in the second part, and so do their reveals.
    expect(parts[1]!.commits.map((c) => c.jobId)).toEqual(all.slice(MAX_REPORT_ITEMS).map(id));
    expect(parts[1]!.reveals.map((r) => r.jobId)).toEqual(all.slice(MAX_REPORT_ITEMS).map(id));
  });

  it('bounds the bytes of reveals per report, a reveal larger than the bound going alone', () => {
    const big = REPORT_BYTES / 2;
    const parts = reportParts([], [reveal(1, big), reveal(2, big), reveal(3, 2 * REPORT_BYTES), reveal(4)]);
    expect(parts.map((part) => part.reveals.map((r) => r.jobId))).toEqual([[id(1), id(4)], [id(2)], [id(3)]]);
  });

  it('sends nothing for an empty turn', () => {
    expect(reportParts([], [])).toEqual([]);
  });
});
