import { describe, expect, it } from 'vitest';
import { judge, readKnownFailures, runConformance, type ConformanceReport } from '../../../scripts/conformance/run.js';
import { readVectorFiles } from '../../../scripts/conformance/vectors.js';
import { stateCases } from '../../../scripts/conformance/state-tests.js';
import { sampleCases } from '../../../scripts/conformance/sample.js';

/** The sample npm test runs: fixed, so a failure names a case that fails again when run alone. */
const SAMPLE = 2_000;
const SEED = 20261128;

describe("Ethereum's test vectors through the node's path (a seeded sample of the state tests, every transaction test)", () => {
  let report: ConformanceReport;

  it('every sampled state case and every transaction vector passes, or is listed with its reason; every blob transaction is refused', {
    timeout: 300_000,
  }, async () => {
    report = await runConformance({ sample: SAMPLE, seed: SEED, threads: 2 });
    const { unlisted, stale, lines } = judge(report, readKnownFailures());
    expect(unlisted, lines.join('\n')).toEqual([]);
    expect(stale, 'listed as failing but passing: take them off scripts/conformance/known-failures.json').toEqual([]);
    expect(report.state.filter((outcome) => outcome.status === 'blob_accepted')).toEqual([]);
    expect(report.state.filter((outcome) => outcome.status === 'blob_refused').length).toBeGreaterThan(0);
    expect(report.transactions.filter((outcome) => outcome.status === 'failed').map((outcome) => outcome.id)).toEqual(
      Object.keys(readKnownFailures().transactions),
    );
  });

  it('the sample holds at least 2,000 cases, from every folder, the same for the same seed', async () => {
    const cases = stateCases(await readVectorFiles('GeneralStateTests'));
    const sample = sampleCases(cases, SAMPLE, SEED);
    expect(sample.length).toBeGreaterThanOrEqual(SAMPLE);
    expect(new Set(sample.map((testCase) => testCase.folder))).toEqual(
      new Set(cases.map((testCase) => testCase.folder)),
    );
    expect(sampleCases(cases, SAMPLE, SEED).map((testCase) => testCase.id)).toEqual(
      sample.map((testCase) => testCase.id),
    );
    expect(report.state.map((outcome) => outcome.id)).toEqual(sample.map((testCase) => testCase.id));
  });

  it('a case that fails and is not listed, or is listed and passes, fails the run', () => {
    const failed = {
      ...report,
      state: [
        {
          id: 'stExample/add11:add11:d0g0v0',
          folder: 'stExample',
          status: 'failed' as const,
          reason: 'state root 0x…',
        },
      ],
    };
    expect(judge(failed, { state: {}, notRun: {}, transactions: {} }).unlisted).toEqual([
      'state stExample/add11:add11:d0g0v0: state root 0x…',
    ]);
    const passed = {
      ...report,
      state: [{ id: 'stExample/add11:add11:d0g0v0', folder: 'stExample', status: 'passed' as const }],
      transactions: [],
    };
    expect(
      judge(passed, { state: { 'stExample/add11:add11:d0g0v0': 'a reason' }, notRun: {}, transactions: {} }).stale,
    ).toEqual(['state stExample/add11:add11:d0g0v0']);
  });
});
