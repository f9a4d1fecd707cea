// A local devnet: the genesis validator, a compute node with --receipt-archive true, and a full node,
// on free ports with their own data dirs, bootstrapped from the validator; with --validators N, N - 1
// more validator nodes whose operators are funded from dev accounts and stake 20 OGT each by
// transaction, so that from the next epoch N validators make blocks by consensus. Prints their URLs;
// Ctrl-C stops them all, each with one clean shutdown.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from './script-args.js';
import { devnetKey, fromHex, generateKeyPair, keyPairFromSecret, RpcError, SvcClient, toHex, UNIT, type KeyPair } from '../sdk/index.js';

const { values, usage } = scriptArgs('devnet', 'usage: npm run devnet -- [--dir <path>] [--fresh] [--block-time <ms>] [--validators <1-10>]', {
  dir: { type: 'string', default: './devnet' },
  fresh: { type: 'boolean', default: false },
  'block-time': { type: 'string', default: '1000' },
  validators: { type: 'string', default: '1' },
});
const blockTime = values['block-time'];
if (!/^\d+$/.test(blockTime)) usage(`--block-time must be a whole number of ms, not "${blockTime}"`);
if (!/^\d+$/.test(values.validators) || Number(values.validators) < 1 || Number(values.validators) > 10) usage(`--validators must be a whole number from 1 to 10 (each staker is funded from a dev account), not "${values.validators}"`);
const validatorCount = Number(values.validators);
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
const names = new Map<ChildProcess, string>();

/** Starts one node and resolves with its RPC URL and first p2p address, read from its log. */
function startNode(name: string, args: string[]): Promise<Running> {
  return new Promise((resolveNode, reject) => {
    // Each node in a process group of its own: a terminal's Ctrl-C reaches only this script, which
    // then stops every node exactly once (a node that gets SIGINT twice exits without a clean shutdown).
    const child = spawn(process.execPath, [svcNode, 'start', '--data-dir', join(root, name), '--bind', '127.0.0.1:0', '--p2p-host', '127.0.0.1', '--p2p-port', '0', '--log-format', 'json', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    names.set(child, name);
    children.push(child);
    // Everything each node says, kept beside its data (the terminal shows only warnings and state changes).
    const log = createWriteStream(join(root, `${name}.log`), { flags: 'a' });
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    child.once('close', () => log.end());
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
    child.once('exit', (code, signal) => reject(new Error(`${name} ${exitText(code, signal)} before it was up: ${errors.trim()}`)));
  });
}

/** How a node ended: its exit code, or the signal that killed it. */
function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return code === null ? `killed by ${signal ?? 'a signal'}` : `exited with ${code}`;
}

let stopping: Promise<boolean> | undefined;

/** Stops every node once (SIGINT: a clean shutdown); true when all of them exited 0. */
function stopAll(): Promise<boolean> {
  stopping ??= Promise.all(
    children.map(
      (child) =>
        new Promise<boolean>((done) => {
          const report = (): void => {
            const ok = child.exitCode === 0;
            process.stdout.write(`[${names.get(child)}] ${ok ? 'stopped cleanly' : exitText(child.exitCode, child.signalCode)}\n`);
            done(ok);
          };
          if (child.exitCode !== null || child.signalCode !== null) return report();
          child.once('exit', report);
          child.kill('SIGINT');
        }),
    ),
  ).then((results) => results.every(Boolean));
  return stopping;
}

// `npm run` forwards the terminal's signal too, so a second one may come: it changes nothing.
const onSignal = (): void => void stopAll().then((clean) => process.exit(clean ? 0 : 1));
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// Should this script die another way, its nodes (in their own process groups) must not outlive it.
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A staker's key, kept in the devnet dir so a restart runs the same validators. */
function stakerKey(name: string): { key: KeyPair; config: string } {
  const keyFile = join(root, `${name}.key`);
  if (!existsSync(keyFile)) writeFileSync(keyFile, toHex(generateKeyPair().secretKey), { mode: 0o600 });
  const key = keyPairFromSecret(fromHex(readFileSync(keyFile, 'utf8').trim()));
  const config = join(root, `${name}.json`);
  writeFileSync(config, JSON.stringify({ validator: { keyFile } }));
  return { key, config };
}

/** Funds each staker from a dev account and stakes 20 OGT with its own key as consensus key (skipped for one already staked); then waits for the set to hold them all. */
async function stake(client: SvcClient, stakers: readonly { name: string; key: KeyPair }[]): Promise<void> {
  for (const [i, { name, key }] of stakers.entries()) {
    const known = await client.stakingStatus(key.address).catch((error: unknown) => {
      if (error instanceof RpcError && error.message === 'not_validator') return undefined;
      throw error;
    });
    if (known) continue;
    await client.waitForTransaction((await client.transfer(devnetKey('account', i), key.address, 'OGT', 25n * UNIT)).hash);
    const receipt = await client.waitForTransaction((await client.createValidator(key, { stake: 20n * UNIT, moniker: name })).hash);
    if (receipt.status !== 'success') throw new Error(`${name}: staking failed: ${receipt.error?.name}: ${receipt.error?.reason}`);
    process.stdout.write(`[${name}] staked 20 OGT (${key.address})\n`);
  }
  const { nextChangeAt } = await client.validators();
  process.stdout.write(`waiting for the epoch to end at block ${nextChangeAt}: the set changes there\n`);
  for (;;) {
    const set = await client.validators();
    if (set.validators.length >= stakers.length + 1) return;
    await new Promise((done) => setTimeout(done, 250));
  }
}

try {
  const validator = await startNode('validator', ['--role', 'validator', '--block-time', blockTime]);
  const stakers = Array.from({ length: validatorCount - 1 }, (_, i) => ({ name: `validator-${i + 1}`, ...stakerKey(`validator-${i + 1}`) }));
  const [compute, full, ...stakerNodes] = await Promise.all([
    startNode('compute', ['--role', 'compute', '--receipt-archive', 'true', '--bootstrap-peers', validator.p2p]),
    startNode('full', ['--role', 'full', '--bootstrap-peers', validator.p2p]),
    ...stakers.map((staker) => startNode(staker.name, ['--role', 'validator', '--block-time', blockTime, '--config', staker.config, '--bootstrap-peers', validator.p2p])),
  ]);
  if (stakers.length > 0) await stake(new SvcClient(validator.rpcUrl), stakers);
  const nodes = [validator, ...stakerNodes, compute, full];
  const width = Math.max(...nodes.map((node) => node.name.length));
  process.stdout.write(
    [
      `devnet up (data and each node's log in ${root}; ${validatorCount} validator(s), a block every ${blockTime} ms; Ctrl-C stops all ${nodes.length})`,
      ...nodes.map((node) => `  ${node.name.padEnd(width)} rpc ${node.rpcUrl}  ws ${node.rpcUrl.replace(/^http/, 'ws')}  p2p ${node.p2p}`),
      '',
    ].join('\n'),
  );
  for (const node of nodes) {
    node.child.once('exit', (code, signal) => {
      if (!stopping) process.stdout.write(`[${node.name}] ${exitText(code, signal)}; the others keep running (its log: ${join(root, `${node.name}.log`)})\n`);
    });
  }
} catch (error) {
  process.stderr.write(`devnet: ${(error as Error).message}\n`);
  await stopAll();
  process.exit(1);
}
