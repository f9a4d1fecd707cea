// Where the test suite's CPU goes: runs vitest (its arguments after `--`, default the whole suite),
// samples every process of the machine from /proc four times a second, and prints the run's time,
// the CPU its process tree used, that CPU by kind of process (node processes the tests start, CLI
// runs, npm, Chromium, the vitest workers themselves…) and the files whose processes used the most.
// On two cores the suite's time cannot go below its CPU over two: this is the measure to cut.
// A process is counted up to its last sample (a CLI run of 0.3 s may lose part of its last quarter
// second); the total comes from the kernel's own account of the children, which loses nothing.
// Usage: node dist/scripts/bench/suite-cpu.js [--json out.json] [-- vitest args]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { childrenCpuMs, cpuMsOf, TICK_MS } from './proc-stat.js';

const SAMPLE_MS = 250;

interface Seen {
  readonly kind: string;
  readonly command: string;
  readonly first: number;
  last: number;
  readonly baseTicks: number;
  ticks: number;
}

/** What a process is, by its command line: the kinds the suite's CPU divides into. */
export function kindOf(command: string): string {
  const rules: [RegExp, string][] = [
    [/vitest.*(forks|worker)/, 'vitest worker (in-process tests and nodes)'],
    [/vitest/, 'vitest main'],
    [/svc-node\.js start\b/, 'node processes (svc-node start)'],
    [/dist\/scripts\/e2e/, 'e2e runner'],
    [/(svc|svc-node|svc-contract)\.js/, 'CLI runs'],
    [/\bnpm\b|npm-cli/, 'npm (install tests)'],
    [/\btsc\b|typescript/, 'tsc (install tests)'],
    [/chrom/, 'Chromium (browser tests)'],
    [/anvil|forge|cast|hardhat|solc/, 'Ethereum tools'],
    [/esbuild/, 'esbuild'],
  ];
  return rules.find(([pattern]) => pattern.test(command))?.[1] ?? `other: ${command.split(' ')[0]!.split('/').at(-1)}`;
}

function ticksOf(pid: string): number | undefined {
  try {
    return cpuMsOf(Number(pid)) / TICK_MS;
  } catch {
    return undefined; // gone between the listing and the read
  }
}

function sample(seen: Map<string, Seen>, now: number, first: boolean): void {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || pid === String(process.pid)) continue;
    const ticks = ticksOf(pid);
    if (ticks === undefined) continue;
    const known = seen.get(pid);
    if (known) {
      known.ticks = ticks;
      known.last = now;
      continue;
    }
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      continue;
    }
    if (!command) continue; // a kernel thread
    // What ran before the suite started counts from the first sample on.
    seen.set(pid, { kind: kindOf(command), command, first: now, last: now, baseTicks: first ? ticks : 0, ticks });
  }
}

interface FileTime {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

function filesOf(report: string): FileTime[] {
  const parsed = JSON.parse(readFileSync(report, 'utf8')) as {
    testResults: { name: string; startTime: number; endTime: number }[];
  };
  return parsed.testResults.map((file) => ({
    name: relative(process.cwd(), file.name),
    start: file.startTime,
    end: file.endTime,
  }));
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(0)} s`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const jsonAt = args.indexOf('--json');
  const jsonOut = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
  const dash = args.indexOf('--');
  const vitestArgs = dash >= 0 ? args.slice(dash + 1) : [];
  const dir = mkdtempSync(join(tmpdir(), 'suite-cpu-'));
  const report = join(dir, 'report.json');
  const seen = new Map<string, Seen>();
  sample(seen, Date.now(), true);
  const began = Date.now();
  const child = spawn(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...vitestArgs,
    ],
    { stdio: 'inherit' },
  );
  const timer = setInterval(() => sample(seen, Date.now(), false), SAMPLE_MS);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  const wallMs = Date.now() - began;
  // The kernel's account of the children waited for (vitest, and in turn everything it waited for).
  const treeMs = childrenCpuMs();
  const processes = [...seen.values()].filter((p) => p.ticks > p.baseTicks);
  const byKind = new Map<string, { ms: number; count: number }>();
  for (const p of processes) {
    const entry = byKind.get(p.kind) ?? { ms: 0, count: 0 };
    entry.ms += (p.ticks - p.baseTicks) * TICK_MS;
    entry.count++;
    byKind.set(p.kind, entry);
  }
  const files = filesOf(report);
  // A process is charged to the files running when it was first seen (two at a time: split between them).
  const byFile = new Map<string, number>();
  for (const p of processes) {
    if (p.kind.startsWith('vitest')) continue;
    const running = files.filter((f) => f.start - SAMPLE_MS <= p.first && p.first <= f.end + SAMPLE_MS);
    for (const f of running)
      byFile.set(f.name, (byFile.get(f.name) ?? 0) + ((p.ticks - p.baseTicks) * TICK_MS) / running.length);
  }
  const kinds = [...byKind].sort((a, b) => b[1].ms - a[1].ms);
  const heaviest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 15);
  const fileSum = files.reduce((sum, f) => sum + f.end - f.start, 0);
  console.log(
    `\nsuite: ${seconds(wallMs)}, vitest exited ${code}; its process tree used ${seconds(treeMs)} of CPU (${(treeMs / wallMs).toFixed(2)} cores on average); the files' own times add up to ${seconds(fileSum)}`,
  );
  console.log('CPU by kind of process (sampled):');
  for (const [kind, { ms, count }] of kinds) console.log(`  ${seconds(ms).padStart(7)}  ${kind} (${count})`);
  console.log("files whose processes used the most CPU (besides the vitest workers'):");
  for (const [name, ms] of heaviest) console.log(`  ${seconds(ms).padStart(7)}  ${name}`);
  if (jsonOut)
    writeFileSync(
      jsonOut,
      JSON.stringify(
        {
          wallMs,
          treeMs,
          fileSumMs: fileSum,
          kinds: Object.fromEntries(kinds),
          files: Object.fromEntries(heaviest),
          // Every file's own time and the CPU of the processes it started, to decide which tier a file belongs in.
          allFiles: Object.fromEntries(
            files.map((f) => [f.name, { wallMs: f.end - f.start, processCpuMs: Math.round(byFile.get(f.name) ?? 0) }]),
          ),
        },
        null,
        2,
      ),
    );
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = code ?? 1;
}

await main();
