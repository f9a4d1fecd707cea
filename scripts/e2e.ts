// `npm run e2e -- [--manifest <file>] [--minutes <n>] [--seed <n>] [--keep]`: starts the testnet a
// manifest describes, runs its workload and perturbations, then checks that every node agrees and
// nothing acknowledged was lost. Prints `N passed, N failed`; exits 1 when a check failed.
import { scriptArgs } from './script-args.js';
import { ConfigError } from '../kernel/config/errors.js';
import { loadManifest } from './e2e/manifest.js';
import { runE2e, type RunnerFault } from './e2e/run.js';

const { values, usage } = scriptArgs(
  'e2e',
  'usage: npm run e2e -- [--manifest <file>] [--minutes <n>] [--seed <n>] [--keep] [--fault balance|drop-tx]',
  {
    manifest: { type: 'string' },
    minutes: { type: 'string' },
    seed: { type: 'string' },
    keep: { type: 'boolean', default: false },
    fault: { type: 'string', multiple: true },
  },
);
if (values.minutes !== undefined && !(/^\d+(\.\d+)?$/.test(values.minutes) && Number(values.minutes) > 0))
  usage(`--minutes must be a positive number, not "${values.minutes}"`);
if (values.seed !== undefined && !/^\d{1,15}$/.test(values.seed))
  usage(`--seed must be a whole number, not "${values.seed}"`);
const faults = (values.fault ?? []) as string[];
for (const fault of faults)
  if (fault !== 'balance' && fault !== 'drop-tx') usage(`--fault is balance or drop-tx, not "${fault}"`);

let manifest;
try {
  manifest = loadManifest(values.manifest, {
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
    ...(values.minutes !== undefined ? { seconds: Number(values.minutes) * 60 } : {}),
  });
} catch (error) {
  if (error instanceof ConfigError || (error as NodeJS.ErrnoException).code === 'ENOENT')
    usage((error as Error).message);
  throw error;
}
// Interrupted: the nodes are killed on the way out (node-process.ts); the run directory stays.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const report = await runE2e({ manifest, faults: faults as RunnerFault[], keep: values.keep === true });
process.exit(report.failed === 0 ? 0 : 1);
