// How long a node takes from `node svc-node.js start` to "node started" (memory store, ports 0), the
// start every restart, CLI-spawned test node and container pays, and the CPU it has used by then, its
// worker threads' included (on a machine whose cores are all busy, as in the test suite, that is the
// cost). With a second dist/ directory, the two builds alternate run by run (this machine's speed
// drifts by minutes) and the ratios are printed.
// Usage: node node-start.js [runs=8] [other dist dir]
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMsOf } from './proc-stat.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const runs = Number(process.argv[2] ?? 8);
const builds = [join(root, 'dist'), ...(process.argv[3] ? [resolve(process.argv[3])] : [])];

interface Start {
  readonly ms: number;
  readonly cpuMs: number;
}

function startOnce(dist: string): Promise<Start> {
  return new Promise((done, fail) => {
    const began = performance.now();
    const child = spawn(
      process.execPath,
      [
        join(dist, 'bin/svc-node.js'),
        'start',
        '--storage',
        'memory',
        '--bind',
        '127.0.0.1:0',
        '--p2p-port',
        '0',
        '--log-format',
        'json',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('node started')) {
        done({ ms: performance.now() - began, cpuMs: cpuMsOf(child.pid!) });
        child.kill('SIGKILL');
      }
    });
    child.once('exit', (code) => fail(new Error(`the node exited (${code}) before it started: ${out.slice(-500)}`)));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const starts = builds.map(() => [] as Start[]);
for (let run = 0; run < runs; run++) for (const [i, dist] of builds.entries()) starts[i]!.push(await startOnce(dist));
const medians = starts.map((of) => ({
  medianMs: Math.round(median(of.map((s) => s.ms))),
  medianCpuMs: Math.round(median(of.map((s) => s.cpuMs))),
}));
const result: Record<string, unknown> = Object.fromEntries(builds.map((dist, i) => [dist, medians[i]]));
if (medians.length === 2) {
  const [now, other] = medians as [(typeof medians)[0], (typeof medians)[0]];
  Object.assign(result, {
    ratio: +(now.medianMs / other.medianMs).toFixed(2),
    cpuRatio: +(now.medianCpuMs / other.medianCpuMs).toFixed(2),
  });
}
process.stdout.write(`${JSON.stringify(result)}\n`);
