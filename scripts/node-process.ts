import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SvcClient } from '../sdk/index.js';

// From dist/ the node's entry sits one level up; run from the TypeScript sources, the build's copy.
export const SVC_NODE = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('../dist/bin/svc-node.js', import.meta.url)
    : new URL('../bin/svc-node.js', import.meta.url),
);
/** How long a node may take from spawn to `node started` (a restart replays nothing, but a busy machine is slow). */
const START_TIMEOUT_MS = 60_000;

export type NodeState = 'down' | 'up' | 'paused';

/** Where a node runs: loopback on free ports by default; on a test host, its address and fixed ports, its command wrapped to run there. */
export interface NodePlacement {
  readonly host?: string;
  readonly rpcPort?: number;
  readonly p2pPort?: number;
  /** The argv prefix that runs the node on its host (`ip netns exec <ns>`). */
  readonly wrap?: readonly string[];
}

// Nodes must not outlive the runner, however it ends (a check failing, Ctrl-C, a test's timeout).
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A line the node's process wrote about itself that the runner keeps (its exits, above all). */
export interface NodeExit {
  readonly at: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The runner sent the signal that ended it (a perturbation, or the run's end). */
  readonly expected: boolean;
  /** Its last error-level log line or stderr output: why it ended, when it ended on its own. */
  readonly lastWords?: string;
}

/** Log levels (pino's numbers) at which a line may say why a process is about to end. */
const ERROR_LEVEL = 50;
const LAST_WORDS_CHARS = 1_000;

export interface NodeProcessOptions {
  /** What the runner, a benchmark or a test calls it (in its errors). */
  readonly name: string;
  /** Its `svc-node start` flags (role, config, genesis, ...). */
  readonly args?: readonly string[];
  /** Its data dir (`--data-dir`), when `args` do not name one. */
  readonly dataDir?: string;
  readonly placement?: NodePlacement;
  /** One log file over all its lives; without one its output is kept in memory (`output()`). */
  readonly logFile?: string;
  /** Another build's `svc-node` entry (a release before this one). */
  readonly bin?: string;
  /** Node's own flags, before the entry (`--cpu-prof`, heap sizes). */
  readonly nodeOptions?: readonly string[];
  /** Environment variables it gets besides this process's (`SVC_RPC_TOKENS`). */
  readonly env?: Readonly<Record<string, string>>;
  /** In a process group of its own: a terminal's Ctrl-C reaches only the script, which stops each node once. */
  readonly detached?: boolean;
  /** Each line it writes on stdout (its JSON log), as it comes. */
  readonly onLine?: (line: string) => void;
  /** Its output also goes to this process's stderr (to watch a benchmark's node). */
  readonly echo?: boolean;
  /**
   * When `start` resolves: once it says `node started` (default), or once its RPC listens (a node
   * whose start waits on something, e.g. a peer, is reachable before that).
   */
  readonly readyAt?: 'started' | 'rpc';
}

/**
 * One `svc-node start`, as a process — the one way the e2e runner, the benchmarks, the devnet script
 * and the tests run a node: started, stopped (cleanly or not), paused and started again on the same
 * data dir and the same ports, so the addresses its peers hold stay good. Its output goes to one log
 * over all its lives (a file, or memory).
 */
export class NodeProcess {
  private child: ChildProcess | undefined;
  private readonly log: WriteStream | undefined;
  private kept = '';
  private rpcPort = 0;
  private p2pPort = 0;
  private expectingExit = false;
  state: NodeState = 'down';
  url = '';
  p2p = '';
  readonly exits: NodeExit[] = [];
  readonly name: string;
  readonly dataDir: string | undefined;
  private readonly args: readonly string[];
  private readonly placement: NodePlacement;
  private readonly host: string;
  private bin: string;

  constructor(private readonly options: NodeProcessOptions) {
    this.bin = options.bin ?? SVC_NODE;
    this.name = options.name;
    this.dataDir = options.dataDir;
    this.args = options.args ?? [];
    this.placement = options.placement ?? {};
    this.log = options.logFile === undefined ? undefined : createWriteStream(options.logFile, { flags: 'a' });
    this.host = this.placement.host ?? '127.0.0.1';
    this.rpcPort = this.placement.rpcPort ?? 0;
    this.p2pPort = this.placement.p2pPort ?? 0;
  }

  /** Starts `svc-node start` with these options and resolves once it is up. */
  static async start(options: NodeProcessOptions, bootstrap: readonly string[] = []): Promise<NodeProcess> {
    const node = new NodeProcess(options);
    await node.start(bootstrap);
    return node;
  }

  /** The running process (undefined while down). */
  get process(): ChildProcess | undefined {
    return this.child;
  }

  /** Everything it wrote over all its lives, when it has no log file. */
  output(): string {
    return this.kept;
  }

  private write(chunk: Buffer | string): void {
    if (this.log) this.log.write(chunk);
    else this.kept += chunk.toString();
    if (this.options.echo) process.stderr.write(chunk);
  }

  get peerId(): string {
    return this.p2p.slice(this.p2p.lastIndexOf('/') + 1);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A client of this node's RPC with a short timeout: a call to a stopped or paused node fails fast. */
  client(timeoutMs = 5_000): SvcClient {
    return new SvcClient({ url: this.url, timeoutMs });
  }

  /** Starts it (again) and resolves once it says `node started`; `bootstrap` are peers' multiaddrs. */
  async start(bootstrap: readonly string[] = []): Promise<void> {
    if (this.state !== 'down') throw new Error(`${this.name} is already ${this.state}`);
    try {
      await this.spawn(bootstrap);
    } catch (error) {
      // Its old port taken meanwhile (rare, on loopback): take any, and let it find its peers through the
      // bootstrap list. A test host's ports are its own.
      if (
        !/EADDRINUSE/.test((error as Error).message) ||
        (this.rpcPort === 0 && this.p2pPort === 0) ||
        this.placement.rpcPort !== undefined
      )
        throw error;
      this.rpcPort = 0;
      this.p2pPort = 0;
      await this.spawn(bootstrap);
    }
  }

  /** `start` and the flags it adds to `args`: data dir, RPC and p2p addresses (each unless `args` name it), JSON logs. */
  private argv(bootstrap: readonly string[]): string[] {
    const named = (flag: string): boolean => this.args.includes(flag);
    const argv = ['start'];
    if (this.dataDir !== undefined && !named('--data-dir')) argv.push('--data-dir', this.dataDir);
    if (!named('--bind')) argv.push('--bind', `${this.host}:${this.rpcPort}`);
    if (!named('--p2p-port')) argv.push('--p2p-host', this.host, '--p2p-port', String(this.p2pPort));
    if (!named('--log-format')) argv.push('--log-format', 'json');
    argv.push(...this.args);
    if (bootstrap.length > 0) argv.push('--bootstrap-peers', bootstrap.join(','));
    return argv;
  }

  private spawn(bootstrap: readonly string[]): Promise<void> {
    const argv = this.argv(bootstrap);
    const [command, ...prefix] = [...(this.placement.wrap ?? []), process.execPath];
    const child = spawn(command!, [...prefix, ...(this.options.nodeOptions ?? []), this.bin, ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.options.env },
      detached: this.options.detached === true,
    });
    live.add(child);
    this.child = child;
    this.expectingExit = false;
    if (this.log) this.log.write(`${JSON.stringify({ e2e: 'spawned', at: Date.now(), pid: child.pid, argv })}\n`);
    return new Promise<void>((resolve, reject) => {
      let seen = '';
      let started = false;
      // Why it might end: the last error it logged, then whatever it wrote on stderr (a stack trace).
      let lastError = '';
      let stderrTail = '';
      const timer = setTimeout(() => {
        if (!started) child.kill('SIGKILL');
      }, START_TIMEOUT_MS);
      const onLine = (line: string): void => {
        this.options.onLine?.(line);
        if (line.includes('"level":50') || line.includes('"level":60')) lastError = errorLine(line) || lastError;
        if (started) return;
        seen = (seen + line).slice(-20_000);
        const rpc = /rpc listening on (https?:\/\/(?:\[[0-9a-f:]+\]|[\d.]+):(\d+))/.exec(line);
        if (rpc) {
          this.url = rpc[1]!;
          this.rpcPort = Number(rpc[2]);
        }
        const p2p = /p2p listening on (\/ip4\/[\d.]+\/tcp\/(\d+)\/p2p\/\w+)/.exec(line);
        if (p2p) {
          this.p2p = p2p[1]!;
          this.p2pPort = Number(p2p[2]);
        }
        if (line.includes('"msg":"node started"') || (this.options.readyAt === 'rpc' && rpc)) {
          started = true;
          clearTimeout(timer);
          this.state = 'up';
          resolve();
        }
      };
      let partial = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        this.write(chunk);
        partial += chunk.toString();
        let newline: number;
        while ((newline = partial.indexOf('\n')) >= 0) {
          onLine(partial.slice(0, newline));
          partial = partial.slice(newline + 1);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        this.write(chunk);
        stderrTail = (stderrTail + chunk.toString()).slice(-LAST_WORDS_CHARS);
        if (!started) seen += chunk.toString();
      });
      child.once('exit', (code, signal) => {
        live.delete(child);
        clearTimeout(timer);
        const lastWords = [lastError, stderrTail.trim()].filter((s) => s !== '').join(' | ');
        this.exits.push({
          at: Date.now(),
          code,
          signal,
          expected: this.expectingExit,
          ...(lastWords ? { lastWords } : {}),
        });
        if (this.log)
          this.log.write(
            `${JSON.stringify({ e2e: 'exited', at: Date.now(), code, signal, expected: this.expectingExit })}\n`,
          );
        if (this.child === child) {
          this.child = undefined;
          this.state = 'down';
        }
        if (!started)
          reject(new Error(`${this.name} exited with ${code ?? signal} before it started: ${seen.slice(-2_000)}`));
      });
    });
  }

  /**
   * Ends it with `signal` (SIGKILL: a crash; SIGTERM/SIGINT: a clean shutdown), waits for the exit
   * (SIGKILL after 30 s) and resolves with its exit code.
   */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
    const child = this.child;
    if (!child) return this.exits.at(-1)?.code ?? null;
    if (this.state === 'paused') child.kill('SIGCONT');
    this.expectingExit = true;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    const timeout = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(timeout);
    return code;
  }

  /** Runs another build's `svc-node` entry from its next start (an operator installing a release). */
  useRelease(bin: string): void {
    this.bin = bin;
  }

  pause(): void {
    if (this.state !== 'up' || !this.child) throw new Error(`${this.name} is ${this.state}: nothing to pause`);
    this.child.kill('SIGSTOP');
    this.state = 'paused';
  }

  resume(): void {
    if (this.state !== 'paused' || !this.child) return;
    this.child.kill('SIGCONT');
    this.state = 'up';
  }

  /** Writes a line of the runner's own into this node's log (what was done to it, and when). */
  note(what: Record<string, unknown>): void {
    this.write(`${JSON.stringify({ e2e: 'runner', at: Date.now(), ...what })}\n`);
  }

  async close(): Promise<void> {
    await this.stop('SIGKILL');
    const log = this.log;
    if (log) await new Promise<void>((resolve) => log.end(resolve));
  }
}

/** A JSON log line at error level, as one short line: its message and the error's. */
function errorLine(line: string): string {
  try {
    const entry = JSON.parse(line) as { level?: number; msg?: unknown; err?: { message?: unknown } };
    if ((entry.level ?? 0) < ERROR_LEVEL) return '';
    const error = typeof entry.err?.message === 'string' ? `: ${entry.err.message}` : '';
    return `${String(entry.msg ?? '')}${error}`.slice(0, LAST_WORDS_CHARS);
  } catch {
    return '';
  }
}
