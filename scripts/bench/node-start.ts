// How long a node takes from `node svc-node.js start` to "node started" (memory store, ports 0), the
// start every restart, CLI-spawned test node and container pays. With a second dist/ directory, the two
// builds alternate run by run (this machine's speed drifts by minutes) and the ratio is printed.
// Usage: node node-start.js [runs=8] [other dist dir]
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const runs = Number(process.argv[2] ?? 8);
const builds = [join(root, 'dist'), ...(process.argv[3] ? [resolve(process.argv[3])] : [])];

function startOnce(dist: string): Promise<number> {
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
        done(performance.now() - began);
        child.kill('SIGKILL');
      }
    });
    child.once('exit', (code) => fail(new Error(`the node exited (${code}) before it started: ${out.slice(-500)}`)));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const times = builds.map(() => [] as number[]);
for (let run = 0; run < runs; run++) for (const [i, dist] of builds.entries()) times[i]!.push(await startOnce(dist));
const result = Object.fromEntries(builds.map((dist, i) => [dist, { medianMs: Math.round(median(times[i]!)) }]));
if (builds.length === 2) Object.assign(result, { ratio: +(median(times[0]!) / median(times[1]!)).toFixed(2) });
process.stdout.write(`${JSON.stringify(result)}\n`);
