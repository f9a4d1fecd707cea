import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const SVC_NODE = resolve('dist/bin/svc-node.js');

// Nodes a test started are killed when the test process ends, even if the test failed or timed out.
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
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
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Starts `svc-node start ...` (of another build with `bin`) and resolves once it logs `rpc listening on <url>`. */
export function startNodeProcess(args: string[], bin = SVC_NODE): Promise<RunningNode> {
  return new Promise((resolvePromise, reject) => {
    // Tests run in parallel: each node takes a free p2p port on loopback unless the test picks one.
    const p2p = args.includes('--p2p-port') ? [] : ['--p2p-host', '127.0.0.1', '--p2p-port', '0'];
    const child = spawn(process.execPath, [bin, 'start', '--log-format', 'json', ...p2p, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    const exited = new Promise<number | null>((r) =>
      child.once('exit', (code) => {
        children.delete(child);
        r(code);
      }),
    );
    const onData = (d: Buffer): void => {
      out += d.toString();
      const match = /rpc listening on (http:\/\/[0-9.:[\]]+)/.exec(out);
      if (match) {
        resolvePromise({
          child,
          url: match[1]!,
          output: () => out,
          stop: (signal = 'SIGINT') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => reject(new Error(`svc-node exited with ${code} before listening:\n${out}`)));
  });
}
