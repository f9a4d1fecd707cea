// A local 3-node devnet: a validator, a compute node with --receipt-archive true, and a full node,
// on free ports with their own data dirs, bootstrapped from the validator. Prints their URLs;
// Ctrl-C stops them all. Usage: npm run devnet -- [--dir <path>] [--fresh] [--block-time <ms>]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: './devnet' },
    fresh: { type: 'boolean', default: false },
    'block-time': { type: 'string', default: '1000' },
  },
});
const blockTime = values['block-time'];
if (!/^\d+$/.test(blockTime)) {
  process.stderr.write(`devnet: --block-time must be an integer number of ms, not "${blockTime}"\n`);
  process.exit(2);
}
const root = resolve(values.dir);
if (values.fresh) rmSync(root, { recursive: true, force: true });
mkdirSync(root, { recursive: true });
const svcNode = fileURLToPath(new URL('../bin/svc-node.js', import.meta.url));

interface Running {
  readonly name: string;
  readonly child: ChildProcess;
  readonly rpcUrl: string;
  readonly p2p: string;
}

const children: ChildProcess[] = [];

/** Starts one node and resolves with its RPC URL and first p2p address, read from its log. */
function startNode(name: string, args: string[]): Promise<Running> {
  return new Promise((resolveNode, reject) => {
    const child = spawn(process.execPath, [svcNode, 'start', '--data-dir', join(root, name), '--bind', '127.0.0.1:0', '--p2p-host', '127.0.0.1', '--p2p-port', '0', '--log-format', 'json', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let rpcUrl: string | undefined;
    let p2p: string | undefined;
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let record: { msg?: string; level?: number };
        try {
          record = JSON.parse(line) as { msg?: string; level?: number };
        } catch {
          continue;
        }
        rpcUrl ??= /rpc listening on (\S+)/.exec(record.msg ?? '')?.[1];
        p2p ??= /p2p listening on (\S+)/.exec(record.msg ?? '')?.[1];
        if ((record.level ?? 0) >= 40 || /caught up|refusing/.test(record.msg ?? '')) process.stdout.write(`[${name}] ${record.msg}\n`);
        if (rpcUrl && p2p && record.msg === 'node started') resolveNode({ name, child, rpcUrl, p2p });
      }
    });
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was up: ${errors.trim()}`)));
  });
}

let stopping = false;

async function stopAll(): Promise<void> {
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGINT');
        }),
    ),
  );
}

process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));

try {
  const validator = await startNode('validator', ['--role', 'validator', '--block-time', blockTime]);
  const [compute, full] = await Promise.all([
    startNode('compute', ['--role', 'compute', '--receipt-archive', 'true', '--bootstrap-peers', validator.p2p]),
    startNode('full', ['--role', 'full', '--bootstrap-peers', validator.p2p]),
  ]);
  process.stdout.write(
    [
      `devnet up (data in ${root}; Ctrl-C stops all three)`,
      ...[validator, compute, full].map((node) => `  ${node.name.padEnd(9)} rpc ${node.rpcUrl}  ws ${node.rpcUrl.replace(/^http/, 'ws')}  p2p ${node.p2p}`),
      '',
    ].join('\n'),
  );
  for (const node of [validator, compute, full]) {
    node.child.once('exit', (code) => {
      if (!stopping) process.stdout.write(`[${node.name}] exited with ${code}; the others keep running\n`);
    });
  }
} catch (error) {
  process.stderr.write(`devnet: ${(error as Error).message}\n`);
  await stopAll();
  process.exit(1);
}
