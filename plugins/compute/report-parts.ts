import { MAX_REPORT_ITEMS } from '../oon/jobs/tx-kinds.js';

/** One commitment or reveal of a report: the job it is about, and its payload fields. */
export type ReportItem = { readonly jobId: string } & Record<string, unknown>;

export interface ReportPart {
  readonly commits: ReportItem[];
  readonly reveals: ReportItem[];
}

/** Reveal bytes per report beside the commitments: outputs travel as hex in a transaction of at most 1 MiB. */
export const REPORT_BYTES = 256 * 1024;
const revealBytes = (item: ReportItem): number => 400 + ((item.output as string | undefined)?.length ?? 0);

/**
 * Splits a turn's commitments and reveals into `oon.reportResults` payloads: at most
 * MAX_REPORT_ITEMS of each per part, reveals within REPORT_BYTES (a reveal larger than that goes
 * alone), and a reveal never before the part that carries its job's commitment (the report would fail).
 */
export function reportParts(commits: readonly ReportItem[], reveals: readonly ReportItem[]): ReportPart[] {
  const commitsLeft = [...commits];
  const revealsLeft = [...reveals];
  const parts: ReportPart[] = [];
  while (commitsLeft.length > 0 || revealsLeft.length > 0) {
    const part: ReportPart = { commits: commitsLeft.splice(0, MAX_REPORT_ITEMS), reveals: [] };
    const later = new Set(commitsLeft.map((item) => item.jobId));
    let bytes = 0;
    for (let i = 0; i < revealsLeft.length && part.reveals.length < MAX_REPORT_ITEMS; ) {
      const item = revealsLeft[i]!;
      if (later.has(item.jobId) || (part.reveals.length > 0 && bytes + revealBytes(item) > REPORT_BYTES)) {
        i += 1;
        continue;
      }
      bytes += revealBytes(item);
      part.reveals.push(item);
      revealsLeft.splice(i, 1);
    }
    parts.push(part);
  }
  return parts;
}
