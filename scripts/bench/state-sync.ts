// Joining a network by state sync against replaying it from genesis, in the same run, beside the floor.
// A dev-mode node builds a chain whose state holds BENCH_STATE_ACCOUNTS fresh accounts (default
// 100,000: transfers from the ten dev accounts) and BENCH_STATE_CONTRACTS Token contracts (default
// 1,000), all by transactions, then mines empty blocks up to BENCH_STATE_BLOCKS (default 20,000); it
// snapshots every BENCH_STATE_INTERVAL blocks (default 5,000). Then, BENCH_ROUNDS times (default 1), a
// fresh node replays the chain from genesis and another state-syncs to it (trusting its newest
// block), each timed from its process's start to its head at the chain's (and, for state sync, from
// its "node started" too: the node's own start is the same whichever way it joins); the state-synced
// node started again on its data dir (what merely starting with that state costs); and the floor: the
// snapshot's bytes copied between two processes on 127.0.0.1, plus its state decoded and its root
// computed from scratch in a fresh process. A sample of balances and token storage must read the same on the
// state-synced node as on the source. Prints one JSON line.
// Usage: node dist/scripts/bench/state-sync.js
//   (BENCH_STATE_SOURCE=<dir>: build the chain there once and use it again in later runs;
//   BENCH_STATE_REPLAY=0: leave the replay out)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractAddressOf, createPayload, deployData } from '../../sdk/contracts.js';
import {
  devnetKey,
  rawTransaction,
  signTransaction,
  SvcClient,
  type SignedTransaction,
  UNIT,
} from '../../sdk/index.js';
import { toEthAddress } from '../../sdk/address.js';
import { compileSolidity } from '../solidity.js';
import { fundedAccounts } from './signed-transfers.js';
import { benchDir, cleanUp, startNode, stopNode, submitAll, type NodeProcess } from './node-process.js';

const ACCOUNTS = Number(process.env.BENCH_STATE_ACCOUNTS ?? 100_000);
const CONTRACTS = Number(process.env.BENCH_STATE_CONTRACTS ?? 1_000);
const BLOCKS = Number(process.env.BENCH_STATE_BLOCKS ?? 20_000);
const INTERVAL = Number(process.env.BENCH_STATE_INTERVAL ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** BENCH_STATE_REPLAY=0 leaves the replay out (when iterating on state sync alone). */
const REPLAY = process.env.BENCH_STATE_REPLAY !== '0';
const CHAIN_ID = 'svc-devnet-1';
/** The mempool takes a sender's nonces at most this far ahead of its account's. */
const NONCE_WINDOW = 1_000;
const MAX_MINE = 10_000;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const devKeys = Array.from({ length: 10 }, (_, i) => devnetKey('account', i));

async function call<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string; data?: unknown } };
  if (body.error) throw new Error(`${method}: ${body.error.message} ${JSON.stringify(body.error.data ?? '')}`);
  return body.result as T;
}

const big = (_: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);
const mine = (url: string, blocks: number) => call(url, 'anvil_mine', [`0x${blocks.toString(16)}`]);

/** Submits the transactions in nonce windows and mines until every dev account's nonce reached `target`. */
async function mineAll(
  source: NodeProcess,
  client: SvcClient,
  txs: readonly SignedTransaction[],
  target: number[],
  batchSize = 100,
) {
  const bySender = new Map<string, SignedTransaction[]>();
  for (const tx of txs) {
    const list = bySender.get(tx.from) ?? [];
    list.push(tx);
    bySender.set(tx.from, list);
  }
  const start = Math.min(...txs.map((tx) => tx.nonce));
  for (let from = start; ; from += NONCE_WINDOW) {
    const wave = [...bySender.values()].flatMap((list) =>
      list.filter((tx) => tx.nonce >= from && tx.nonce < from + NONCE_WINDOW),
    );
    if (wave.length === 0) return;
    await submitAll(client, wave.map(rawTransaction), 4, 'svc_sendRawTransaction', batchSize);
    const goals = devKeys.map((_, i) => Math.min(target[i]!, from + NONCE_WINDOW));
    for (;;) {
      await mine(source.url, 1);
      const nonces = await Promise.all(devKeys.map((key) => client.getNonce(key.address)));
      if (nonces.every((nonce, i) => nonce >= goals[i]!)) break;
    }
  }
}

/**
 * Starts a node and resolves with the seconds from its process's spawn until its head reached
 * `height`, and from its "node started" (modules loaded, plugins and ports up) until then.
 */
async function joinSeconds(
  args: string[],
  height: number,
  onLine?: (line: string) => void,
): Promise<{ node: NodeProcess; seconds: number; sinceStarted: number }> {
  const spawned = performance.now();
  const node = await startNode(args, [], onLine);
  const started = performance.now();
  const client = new SvcClient(node.url);
  while ((await client.blockNumber()) < height) await new Promise((resolve) => setTimeout(resolve, 20));
  const now = performance.now();
  return { node, seconds: (now - spawned) / 1000, sinceStarted: (now - started) / 1000 };
}

/** Seconds to copy these files' bytes from a child process to this one over a TCP socket on 127.0.0.1. */
async function copySeconds(files: readonly string[]): Promise<{ seconds: number; bytes: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sender = `const s=require('net').connect(${port},'127.0.0.1',()=>{for(const f of ${JSON.stringify(files)})s.write(require('fs').readFileSync(f));s.end()})`;
  const started = performance.now();
  const received = new Promise<number>((resolve) =>
    server.once('connection', (socket) => {
      const parts: Buffer[] = [];
      socket.on('data', (part: Buffer) => parts.push(part));
      socket.on('end', () => resolve(Buffer.concat(parts).length));
    }),
  );
  const child = spawn(process.execPath, ['-e', sender], { stdio: 'inherit' });
  const bytes = await received;
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => child.once('exit', resolve));
  server.close();
  return { seconds, bytes };
}

/** Seconds a fresh process takes to decode the snapshot's chunks and compute their state root from scratch. */
function rootSeconds(dir: string, chunks: number): { seconds: number; root: string } {
  const script = fileURLToPath(new URL('./state-root-floor.js', import.meta.url));
  const out = execFileSync(process.execPath, [script, dir, String(chunks)], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { seconds: number; root: string };
}

/** What a built chain holds that the checks sample: its fresh accounts and its tokens (ERC-20 addresses). */
interface Built {
  readonly accounts: string[];
  readonly tokens: string[];
}

/** Accounts, contracts, then empty blocks up to BLOCKS, all by transactions on the dev-mode node. */
async function buildChain(source: NodeProcess, client: SvcClient): Promise<Built> {
  await call(source.url, 'evm_setAutomine', [false]);
  const { accounts, funding } = fundedAccounts(CHAIN_ID, ACCOUNTS, Array(10).fill(0), UNIT);
  const nonces = devKeys.map(() => Math.ceil(ACCOUNTS / 10));
  await mineAll(source, client, funding, nonces);
  const token = (await compileSolidity([join(root, 'examples/contracts')])).Token;
  if (!token) throw new Error('examples/contracts holds no Token');
  const code = deployData({ abi: token.abi as never, bytecode: token.bytecode, args: [1_000_000n] });
  const deploys: SignedTransaction[] = [];
  const tokens: string[] = [];
  for (let i = 0; i < CONTRACTS; i++) {
    const from = i % 10;
    const nonce = nonces[from]!++;
    tokens.push(toEthAddress(contractAddressOf(devKeys[from]!.address, nonce)));
    deploys.push(
      signTransaction(
        {
          chainId: CHAIN_ID,
          kind: 'evm.create',
          nonce,
          payload: createPayload({ bytecode: token.bytecode }, code, 1_500_000),
        },
        devKeys[from]!,
      ),
    );
  }
  // A deployment's raw transaction is ~13 KB: batches of 20 stay under the node's 1 MiB body limit.
  await mineAll(source, client, deploys, nonces, 20);
  for (let height = await client.blockNumber(); height < BLOCKS; height = await client.blockNumber())
    await mine(source.url, Math.min(MAX_MINE, BLOCKS - height));
  return { accounts: accounts.map((a) => a.address), tokens };
}

try {
  // 1. The chain, on a dev-mode node mining on demand; BENCH_STATE_SOURCE=<dir> keeps it there and a
  // later run uses it again (to iterate on the joining side only).
  const kept = process.env.BENCH_STATE_SOURCE;
  const sourceDir = kept ?? benchDir();
  const builtFile = join(sourceDir, 'bench-built.json');
  const configFile = join(benchDir(), 'source.json');
  writeFileSync(configFile, JSON.stringify({ snapshots: { interval: INTERVAL, keep: 2 } }));
  const source = await startNode(['--dev', '--data-dir', sourceDir, '--config', configFile]);
  const client = new SvcClient({ url: source.url, timeoutMs: 300_000 });
  const building = performance.now();
  const reused = kept !== undefined && existsSync(builtFile);
  const { accounts, tokens } = reused
    ? (JSON.parse(readFileSync(builtFile, 'utf8')) as Built)
    : await buildChain(source, client);
  if (kept !== undefined) writeFileSync(builtFile, JSON.stringify({ accounts, tokens }));
  const buildSeconds = (performance.now() - building) / 1000;
  const head = await client.getBlockByNumber(BLOCKS);
  const snapshot = join(sourceDir, 'snapshots', String(BLOCKS));
  const manifestFile = join(snapshot, 'manifest');
  while (
    !readdirSync(join(sourceDir, 'snapshots')).includes(String(BLOCKS)) ||
    !readdirSync(snapshot).includes('manifest')
  )
    await new Promise((resolve) => setTimeout(resolve, 100));
  const chunkFiles = readdirSync(snapshot).filter((f) => f.startsWith('chunk-'));
  const files = [manifestFile, ...chunkFiles.map((f) => join(snapshot, f))];
  const snapshotBytes = files.reduce((sum, f) => sum + readFileSync(f).length, 0);

  // 2. Rounds: replay, state sync, and the floor, one after another.
  const rounds: {
    replay: number;
    stateSync: number;
    syncing: number;
    restore: number;
    restart: number;
    copy: number;
    root: number;
  }[] = [];
  let same = true;
  for (let round = 0; round < ROUNDS; round++) {
    const replay = REPLAY
      ? await joinSeconds(['--role', 'full', '--data-dir', benchDir(), '--bootstrap-peers', source.p2p], BLOCKS)
      : { node: undefined, seconds: Number.NaN };
    if (replay.node) await stopNode(replay.node);
    let restore = Number.NaN;
    const syncedDir = benchDir();
    const synced = await joinSeconds(
      [
        '--role',
        'full',
        '--data-dir',
        syncedDir,
        '--bootstrap-peers',
        source.p2p,
        '--state-sync',
        '--trust-height',
        String(BLOCKS),
        '--trust-hash',
        head.hash,
      ],
      BLOCKS,
      (line) => {
        if (!line.includes('state sync: done at block')) return;
        restore = (JSON.parse(line) as { seconds: number }).seconds;
      },
    );
    // The same answers as the source: a sample of the accounts and of the tokens' storage.
    const ours = new SvcClient(synced.node.url);
    for (let i = 0; i < accounts.length; i += Math.ceil(accounts.length / 200)) {
      const address = accounts[i]!;
      const [a, b] = await Promise.all([ours.getBalance(address, BLOCKS), client.getBalance(address, BLOCKS)]);
      if (JSON.stringify(a, big) !== JSON.stringify(b, big)) same = false;
    }
    for (let i = 0; i < tokens.length; i += Math.ceil(tokens.length / 100)) {
      for (const slot of ['0x0', '0x1']) {
        const [a, b] = await Promise.all(
          [synced.node.url, source.url].map((url) =>
            call<string>(url, 'eth_getStorageAt', [tokens[i], slot, 'latest']),
          ),
        );
        if (a !== b || a === `0x${'0'.repeat(64)}`) same = false;
      }
    }
    await stopNode(synced.node);
    // What a node holding that state pays merely to start again: modules, and its state read and its root computed.
    const restarted = await joinSeconds(['--role', 'full', '--data-dir', syncedDir], BLOCKS);
    await stopNode(restarted.node);
    const copy = await copySeconds(files);
    const computed = rootSeconds(snapshot, chunkFiles.length);
    if (computed.root !== head.stateRoot) throw new Error(`the floor's root ${computed.root} is not ${head.stateRoot}`);
    rounds.push({
      replay: replay.seconds,
      stateSync: synced.seconds,
      syncing: synced.sinceStarted,
      restore,
      restart: restarted.seconds,
      copy: copy.seconds,
      root: computed.seconds,
    });
  }
  await stopNode(source);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const pick = (key: keyof (typeof rounds)[number]) => Number(median(rounds.map((r) => r[key])).toFixed(2));
  const floor = pick('copy') + pick('root');
  process.stdout.write(
    `${JSON.stringify({
      accounts: ACCOUNTS,
      contracts: CONTRACTS,
      blocks: BLOCKS,
      buildSeconds: reused ? null : Number(buildSeconds.toFixed(1)),
      snapshotMegabytes: Number((snapshotBytes / 2 ** 20).toFixed(1)),
      chunks: chunkFiles.length,
      rounds,
      replaySeconds: pick('replay'),
      stateSyncSeconds: pick('stateSync'),
      syncingSeconds: pick('syncing'),
      restoreSeconds: pick('restore'),
      restartSeconds: pick('restart'),
      floorSeconds: Number(floor.toFixed(2)),
      stateSyncToReplay: Number((pick('stateSync') / pick('replay')).toFixed(3)),
      syncingToFloor: Number((pick('syncing') / floor).toFixed(2)),
      stateSyncToFloor: Number((pick('stateSync') / floor).toFixed(2)),
      sameAnswers: same,
    })}\n`,
  );
} finally {
  await cleanUp();
}
