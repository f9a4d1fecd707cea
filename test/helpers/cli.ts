import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { NodeProcess } from '../../scripts/node-process.js';

export const SVC_NODE = resolve('dist/bin/svc-node.js');

export const SVC = resolve('dist/bin/svc.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a built CLI to completion. */
export function run(bin: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

export interface RunningNode {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `svc-node start ...` (of another build with `bin`) as the shared NodeProcess and resolves once its RPC listens. */
export async function startNodeProcess(args: string[], bin = SVC_NODE): Promise<RunningNode> {
  const node = await NodeProcess.start({ name: `svc-node ${args.join(' ')}`, args, bin, readyAt: 'rpc' });
  return {
    child: node.process!,
    url: node.url,
    output: () => node.output(),
    stop: (signal = 'SIGINT') => node.stop(signal),
  };
}
