import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cac } from 'cac';
import { Hardfork } from '@ethereumjs/common';
import { NodePath } from './node-path.js';
import { runStateCases } from './pool.js';
import { readVectorFiles } from './vectors.js';
import { stateCases, VECTOR_CHAIN_ID, type CaseOutcome } from './state-tests.js';
import { runTransactionCase, transactionCases, type TransactionOutcome } from './transaction-tests.js';
import { sampleCases } from './sample.js';

/** Cases that do not pass, each with its reason (scripts/conformance/known-failures.json). */
export interface KnownFailures {
  readonly state: Readonly<Record<string, string>>;
  /** State cases not run at all (each counted as failed, with its reason): what would take hours. */
  readonly notRun: Readonly<Record<string, string>>;
  readonly transactions: Readonly<Record<string, string>>;
}

export const KNOWN_FAILURES_FILE = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? './known-failures.json' : '../../../scripts/conformance/known-failures.json',
    import.meta.url,
  ),
);

export function readKnownFailures(file = KNOWN_FAILURES_FILE): KnownFailures {
  return JSON.parse(readFileSync(file, 'utf8')) as KnownFailures;
}

export interface ConformanceOptions {
  /** Run this many state cases, drawn from every folder by `seed`; all when absent. */
  readonly sample?: number;
  readonly seed?: number;
  /** Only cases whose id contains this. */
  readonly filter?: string;
  /** Worker threads for the state cases (default: one per core). */
  readonly threads?: number;
}

export interface ConformanceReport {
  readonly state: readonly CaseOutcome[];
  readonly transactions: readonly TransactionOutcome[];
  readonly ms: number;
}

/** Runs the state cases (all, or the sample) and every transaction vector through the node's path. */
export async function runConformance(
  options: ConformanceOptions = {},
  progress?: (done: number, total: number) => void,
  known = readKnownFailures(),
): Promise<ConformanceReport> {
  const started = performance.now();
  const [stateFiles, transactionFiles] = [
    await readVectorFiles('GeneralStateTests'),
    await readVectorFiles('TransactionTests'),
  ];
  let cases = stateCases(stateFiles).filter((testCase) => !options.filter || testCase.id.includes(options.filter));
  if (options.sample !== undefined) cases = sampleCases(cases, options.sample, options.seed ?? 1);
  const notRun = known.notRun;
  const run = cases.filter((testCase) => notRun[testCase.id] === undefined);
  const outcomes = await runStateCases(run, options.threads ?? availableParallelism(), (done) =>
    progress?.(done, run.length),
  );
  const byId = new Map(outcomes.map((outcome) => [outcome.id, outcome]));
  const state = cases.map(
    (testCase): CaseOutcome =>
      byId.get(testCase.id) ?? {
        id: testCase.id,
        folder: testCase.folder,
        status: 'failed',
        reason: `not run: ${notRun[testCase.id]}`,
      },
  );
  // No block: nothing is refused for its gas limit or fee cap against a chain's parameters.
  const path = await NodePath.create(Hardfork.Cancun, {
    evmChainId: VECTOR_CHAIN_ID,
    baseFee: 0n,
    blockGasLimit: 2n ** 64n - 1n,
  });
  const transactions = transactionCases(transactionFiles)
    .filter((testCase) => !options.filter || testCase.id.includes(options.filter))
    .map((testCase) => runTransactionCase(testCase, path));
  return { state, transactions, ms: performance.now() - started };
}

/** What a report says against the list of known failures: the lines to print and whether it fails. */
export function judge(
  report: ConformanceReport,
  known: KnownFailures,
): { lines: string[]; unlisted: string[]; stale: string[] } {
  const count = (status: string) => report.state.filter((outcome) => outcome.status === status).length;
  const txCount = (status: string) => report.transactions.filter((outcome) => outcome.status === status).length;
  const lines = [
    `state: ${count('passed')} passed, ${count('failed')} failed`,
    `blob: ${count('blob_refused')} refused, ${count('blob_accepted')} accepted`,
    `transactions: ${txCount('passed') + txCount('refused_on_purpose')} passed, ${txCount('failed')} failed`,
    `  of the passed, refused on purpose (valid in Ethereum, not taken by this chain): ${txCount('refused_on_purpose')}`,
    `time: ${(report.ms / 1000).toFixed(1)} s`,
  ];
  const unlisted: string[] = [];
  const stale: string[] = [];
  for (const outcome of report.state) {
    const listed = known.state[outcome.id] ?? known.notRun[outcome.id];
    if ((outcome.status === 'failed' || outcome.status === 'blob_accepted') && !listed)
      unlisted.push(`state ${outcome.id}: ${outcome.reason}`);
    if ((outcome.status === 'passed' || outcome.status === 'blob_refused') && listed) stale.push(`state ${outcome.id}`);
  }
  for (const outcome of report.transactions) {
    const listed = known.transactions[outcome.id];
    if (outcome.status === 'failed' && !listed) unlisted.push(`transaction ${outcome.id}: ${outcome.reason}`);
    if (outcome.status !== 'failed' && listed) stale.push(`transaction ${outcome.id}`);
  }
  return { lines, unlisted, stale };
}

async function main(): Promise<void> {
  const cli = cac('conformance');
  cli
    .option('--sample <n>', 'run this many state cases, drawn from every folder (default: all)')
    .option('--seed <n>', "the sample's seed", { default: '1' })
    .option('--filter <text>', 'only cases whose id contains this')
    .option('--threads <n>', 'worker threads for the state cases (default: one per core)')
    .help();
  const { options } = cli.parse();
  if (options.help) return;
  const report = await runConformance(
    {
      ...(options.sample !== undefined ? { sample: Number(options.sample) } : {}),
      seed: Number(options.seed),
      ...(options.filter !== undefined ? { filter: String(options.filter) } : {}),
      ...(options.threads !== undefined ? { threads: Number(options.threads) } : {}),
    },
    (done, total) => process.stderr.write(`  ${done} of ${total} state cases\n`),
  );
  const { lines, unlisted, stale } = judge(report, readKnownFailures());
  for (const outcome of report.state)
    if (outcome.status === 'failed') console.log(`listed: state ${outcome.id}: ${outcome.reason}`);
  for (const outcome of report.transactions)
    if (outcome.status === 'failed') console.log(`listed: transaction ${outcome.id}: ${outcome.reason}`);
  for (const line of unlisted) console.log(`not listed: ${line}`);
  for (const line of stale)
    console.log(`listed but passes (take it off scripts/conformance/known-failures.json): ${line}`);
  for (const line of lines) console.log(line);
  console.log(`cores: ${availableParallelism()}`);
  if (unlisted.length > 0 || stale.length > 0) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
