// A local devnet: the genesis validator (the devnet's compute and storage provider from its genesis), a
// compute node with --receipt-archive true that registers itself as a compute provider, and a full node,
// on free ports with their own data dirs, bootstrapped from the validator; with --validators N, N - 1
// more validator nodes whose operators are funded from dev accounts and stake 20 OGT each by
// transaction, so that from the next epoch N validators make blocks by consensus. Prints their URLs;
// Ctrl-C stops them all, each with one clean shutdown.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scriptArgs } from './script-args.js';
import { NodeProcess } from './node-process.js';
import {
  devnetKey,
  fromHex,
  generateKeyPair,
  keyPairFromSecret,
  isDomainError,
  SvcClient,
  toHex,
  UNIT,
  type KeyPair,
} from '../sdk/index.js';

const { values, usage } = scriptArgs(
  'devnet',
  'usage: npm run devnet -- [--dir <path>] [--fresh] [--block-time <ms>] [--validators <1-10>]',
  {
    dir: { type: 'string', default: './devnet' },
    fresh: { type: 'boolean', default: false },
    'block-time': { type: 'string', default: '1000' },
    validators: { type: 'string', default: '1' },
  },
);
const blockTime = values['block-time'];
if (!/^\d+$/.test(blockTime)) usage(`--block-time must be a whole number of ms, not "${blockTime}"`);
if (!/^\d+$/.test(values.validators) || Number(values.validators) < 1 || Number(values.validators) > 10)
  usage(
    `--validators must be a whole number from 1 to 10 (each staker is funded from a dev account), not "${values.validators}"`,
  );
const validatorCount = Number(values.validators);
const root = resolve(values.dir);
if (values.fresh) rmSync(root, { recursive: true, force: true });
mkdirSync(root, { recursive: true });

const nodes: NodeProcess[] = [];

/** Starts one node (its whole log kept beside its data) and resolves once it is up. */
async function startNode(name: string, args: string[]): Promise<NodeProcess> {
  const node = new NodeProcess({
    name,
    dataDir: join(root, name),
    args,
    logFile: join(root, `${name}.log`),
    // Each node in a process group of its own: a terminal's Ctrl-C reaches only this script, which
    // then stops every node exactly once (a node that gets SIGINT twice exits without a clean shutdown).
    detached: true,
    // The terminal shows only warnings and state changes.
    onLine: (line) => {
      let record: { msg?: string; level?: number };
      try {
        record = JSON.parse(line) as { msg?: string; level?: number };
      } catch {
        return;
      }
      if ((record.level ?? 0) >= 40 || /caught up|refusing/.test(record.msg ?? ''))
        process.stdout.write(`[${name}] ${record.msg}\n`);
    },
  });
  nodes.push(node);
  await node.start();
  return node;
}

/** How a node ended: its exit code, or the signal that killed it. */
function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return code === null ? `killed by ${signal ?? 'a signal'}` : `exited with ${code}`;
}

let stopping: Promise<boolean> | undefined;

/** Stops every node once (SIGINT: a clean shutdown); true when all of them exited 0. */
function stopAll(): Promise<boolean> {
  stopping ??= Promise.all(
    nodes.map(async (node) => {
      const code = await node.stop('SIGINT');
      const exit = node.exits.at(-1);
      const ok = code === 0;
      process.stdout.write(
        `[${node.name}] ${ok ? 'stopped cleanly' : exitText(exit?.code ?? null, exit?.signal ?? null)}\n`,
      );
      return ok;
    }),
  ).then((results) => results.every(Boolean));
  return stopping;
}

// `npm run` forwards the terminal's signal too, so a second one may come: it changes nothing.
const onSignal = (): void => void stopAll().then((clean) => process.exit(clean ? 0 : 1));
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

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
      if (isDomainError(error, 'not_validator')) return undefined;
      throw error;
    });
    if (known) continue;
    await client.waitForTransaction(
      (await client.transfer(devnetKey('account', i), key.address, 'OGT', 25n * UNIT)).hash,
    );
    const receipt = await client.waitForTransaction(
      (await client.createValidator(key, { stake: 20n * UNIT, moniker: name })).hash,
    );
    if (receipt.status !== 'success')
      throw new Error(`${name}: staking failed: ${receipt.error?.name}: ${receipt.error?.reason}`);
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

/** The dev account that funds the compute node's bond: past the ten stakers' accounts (0 to 8). */
const COMPUTE_FUNDER = 9;
const COMPUTE_BOND_OGT = 1000;

/**
 * Registers the compute node as a dedicated compute provider (wasm and evm), its 1,000 OGT bond funded
 * from a dev account; a restart finds it registered and leaves it so.
 */
async function registerCompute(validator: SvcClient, compute: SvcClient, operatorFile: string): Promise<void> {
  const status = await compute.oonNodeStatus();
  if (status.status !== 'unregistered') return;
  const operator = (JSON.parse(readFileSync(operatorFile, 'utf8')) as { address: string }).address;
  await validator.waitForTransaction(
    (await validator.transfer(devnetKey('account', COMPUTE_FUNDER), operator, 'OGT', BigInt(COMPUTE_BOND_OGT) * UNIT))
      .hash,
  );
  // The funds reached the compute node: it has synced that far, so it may register.
  for (;;) {
    if ((await compute.getBalance(operator)).ogt >= BigInt(COMPUTE_BOND_OGT) * UNIT) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  await compute.oonRegisterNode({
    operator,
    capabilities: ['wasm', 'evm'],
    bond_ogt: COMPUTE_BOND_OGT,
    max_concurrent_jobs: 4,
  });
  for (;;) {
    if ((await compute.oonNodeStatus()).status === 'active') break;
    await new Promise((done) => setTimeout(done, 100));
  }
  process.stdout.write(`[compute] registered as a compute provider (${operator}, ${COMPUTE_BOND_OGT} OGT bonded)\n`);
}

try {
  const validator = await startNode('validator', ['--role', 'validator', '--block-time', blockTime]);
  const stakers = Array.from({ length: validatorCount - 1 }, (_, i) => ({
    name: `validator-${i + 1}`,
    ...stakerKey(`validator-${i + 1}`),
  }));
  const [compute, full, ...stakerNodes] = await Promise.all([
    // The genesis validator decides every faucet grant: the others pass faucet_request to it.
    startNode('compute', [
      '--role',
      'compute',
      '--receipt-archive',
      'true',
      '--bootstrap-peers',
      validator.p2p,
      '--faucet-authority',
      validator.peerId,
    ]),
    startNode('full', ['--role', 'full', '--bootstrap-peers', validator.p2p, '--faucet-authority', validator.peerId]),
    ...stakers.map((staker) =>
      startNode(staker.name, [
        '--role',
        'validator',
        '--block-time',
        blockTime,
        '--config',
        staker.config,
        '--bootstrap-peers',
        validator.p2p,
        '--faucet-authority',
        validator.peerId,
      ]),
    ),
  ]);
  if (stakers.length > 0) await stake(new SvcClient(validator.url), stakers);
  await registerCompute(
    new SvcClient(validator.url),
    new SvcClient(compute.url),
    join(root, 'compute', 'keys', 'operator.json'),
  );
  const up = [validator, ...stakerNodes, compute, full];
  const width = Math.max(...nodes.map((node) => node.name.length));
  process.stdout.write(
    [
      `devnet up (data and each node's log in ${root}; ${validatorCount} validator(s), a block every ${blockTime} ms; Ctrl-C stops all ${up.length})`,
      ...up.map(
        (node) =>
          `  ${node.name.padEnd(width)} rpc ${node.url}  ws ${node.url.replace(/^http/, 'ws')}  p2p ${node.p2p}`,
      ),
      '',
    ].join('\n'),
  );
  for (const node of up) {
    node.process?.once('exit', (code, signal) => {
      if (!stopping)
        process.stdout.write(
          `[${node.name}] ${exitText(code, signal)}; the others keep running (its log: ${join(root, `${node.name}.log`)})\n`,
        );
    });
  }
} catch (error) {
  process.stderr.write(`devnet: ${(error as Error).message}\n`);
  await stopAll();
  process.exit(1);
}
