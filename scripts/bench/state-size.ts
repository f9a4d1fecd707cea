// State size after many jobs: one node in this process (RocksDB, a genesis whose settled job records
// stay BENCH_RECORD_BLOCKS = 20 blocks), BENCH_STATE_JOBS (default 100,000) small WASM jobs submitted
// by 200 requesters in blocks of 10,000; no provider takes them, so each settles as expired when its
// queue window (600 blocks and 600 s) has passed. The script makes every block itself (the validator
// key, chosen timestamps), so the windows pass in a moment. It measures the consensus state (keys, and
// bytes of keys and values, by prefix) at genesis, with every job queued, once every job has settled
// (what the state would keep for good without records leaving it), and `jobRecordBlocks` later. Prints
// one JSON line. Usage: node dist/scripts/bench/state-size.js
import '../../p2p/promise-with-resolvers.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wabtFactory from 'wabt';
import { catalog } from '../../node/catalog.js';
import { mergeConfig } from '../../kernel/config/load.js';
import { resolveConfig } from '../../node/config.js';
import { SvcNode } from '../../node/node.js';
import { createLogger } from '../../kernel/log.js';
import {
  devnetKey,
  generateKeyPair,
  jobPayload,
  signTransaction,
  toHex,
  type KeyPair,
  type SignedTransaction,
} from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import { JOB_PARAMS } from '../../plugins/oon/jobs/params.js';

const JOBS = Number(process.env.BENCH_STATE_JOBS ?? 100_000);
const RECORD_BLOCKS = Number(process.env.BENCH_RECORD_BLOCKS ?? 20);
const REQUESTERS = 200;
const PER_BLOCK = 10_000;
const CHAIN_ID = 'svc-state-size-1';

interface StateSize {
  readonly keys: number;
  readonly bytes: number;
  readonly byPrefix: Record<string, { keys: number; bytes: number }>;
}

/** Keys and bytes (key and value) of the consensus state, by collection: `oon/jobs`, `oon/all`, `accounts`. */
function measure(chain: Chain): StateSize {
  const byPrefix: Record<string, { keys: number; bytes: number }> = {};
  let keys = 0;
  let bytes = 0;
  for (const [key, value] of chain.state.entriesUnder('')) {
    const size = Buffer.byteLength(key) + value.length;
    const [first, second] = key.split('/');
    const prefix = second === undefined || /^(svc1|0x)/.test(second) ? first! : `${first}/${second}`;
    const entry = (byPrefix[prefix] ??= { keys: 0, bytes: 0 });
    entry.keys += 1;
    entry.bytes += size;
    keys += 1;
    bytes += size;
  }
  return { keys, bytes, byPrefix };
}

const wabt = await wabtFactory();
const parsed = wabt.parseWat('noop.wat', '(module (memory (export "memory") 1) (func (export "_start")))', {});
const code = Uint8Array.from(parsed.toBinary({}).buffer);
parsed.destroy();

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-state-'));
const validatorKey = devnetKey('validator', 0);
const requesters: KeyPair[] = Array.from({ length: REQUESTERS }, () => generateKeyPair());
const genesis = join(dir, 'genesis.json');
writeFileSync(
  genesis,
  JSON.stringify({
    chainId: CHAIN_ID,
    timestamp: 1_700_000_000_000,
    validatorKey: toHex(validatorKey.publicKey),
    validator: validatorKey.address,
    accounts: requesters.map((r) => ({ address: r.address, omc: '1000', ogt: '0' })),
    jobRecordBlocks: RECORD_BLOCKS,
  }),
);
const config = resolveConfig(
  mergeConfig(
    {
      role: 'full',
      storage: 'rocksdb',
      dataDir: join(dir, 'data'),
      genesis,
      rpc: { bind: '127.0.0.1:0' },
      p2p: { host: '127.0.0.1', port: 0 },
    },
    {},
  ),
);
const node = await SvcNode.create({ config, catalog, log: createLogger({ level: 'warn', format: 'json' }) });
try {
  await node.start();
  const chain = node.service<Chain>('chain');
  let timestamp = chain.head.timestamp;
  /** One block, `after` ms after the last (1 ms keeps the queue window's time from passing). */
  const block = async (after = 1): Promise<number> => {
    timestamp += after;
    const started = performance.now();
    await chain.produceBlock(validatorKey, timestamp);
    return performance.now() - started;
  };
  const atGenesis = measure(chain);

  const nonces = new Map<KeyPair, number>();
  const started = performance.now();
  let blockMs = 0;
  for (let submitted = 0; submitted < JOBS; ) {
    const batch: SignedTransaction[] = [];
    for (; batch.length < PER_BLOCK && submitted < JOBS; submitted++) {
      const requester = requesters[submitted % REQUESTERS]!;
      const nonce = nonces.get(requester) ?? 0;
      nonces.set(requester, nonce + 1);
      batch.push(
        signTransaction(
          {
            chainId: CHAIN_ID,
            kind: 'oon.submitJob',
            nonce,
            payload: jobPayload({
              runtime: 'wasm',
              code,
              input: new TextEncoder().encode(`job ${submitted}`),
              gasLimit: 10_000n,
              gasPrice: 1n,
            }),
          },
          requester,
        ),
      );
    }
    await Promise.all(batch.map((tx) => chain.submit(tx)));
    blockMs += await block();
    if (chain.mempool.size > 0) throw new Error(`${chain.mempool.size} submissions were left out of the block`);
  }
  const queued = measure(chain);
  const submitSeconds = (performance.now() - started) / 1000;

  // The queue window's blocks, then its time: every job settles as expired in one block.
  const firstHeight = chain.head.height;
  while (chain.head.height < firstHeight + JOB_PARAMS.queueWindow.blocks) await block();
  const settleMs = await block(JOB_PARAMS.queueWindow.ms + 1000);
  const settled = measure(chain);
  const settledAt = chain.head.height;
  while (chain.head.height < settledAt + RECORD_BLOCKS - 1) await block();
  const forgetMs = await block();
  const after = measure(chain);
  const left = after.byPrefix['oon/jobs']?.keys ?? 0;
  if (left !== 0) throw new Error(`${left} job records are still in the state ${RECORD_BLOCKS} blocks after settling`);

  const perJob = (size: StateSize): number => Math.round((size.bytes - atGenesis.bytes) / JOBS);
  console.log(
    JSON.stringify({
      jobs: JOBS,
      recordBlocks: RECORD_BLOCKS,
      submitSeconds: Math.round(submitSeconds),
      blockOf10000SubmissionsMs: Math.round(blockMs / Math.ceil(JOBS / PER_BLOCK)),
      settleBlockMs: Math.round(settleMs),
      forgetBlockMs: Math.round(forgetMs),
      genesis: { keys: atGenesis.keys, bytes: atGenesis.bytes },
      queued: { keys: queued.keys, bytes: queued.bytes, bytesPerJob: perJob(queued) },
      settled: { keys: settled.keys, bytes: settled.bytes, bytesPerJob: perJob(settled) },
      afterRecordBlocks: { keys: after.keys, bytes: after.bytes, bytesPerJob: perJob(after) },
      keptRatio: Number(((after.bytes - atGenesis.bytes) / (settled.bytes - atGenesis.bytes)).toFixed(3)),
      settledByPrefix: settled.byPrefix,
      afterByPrefix: after.byPrefix,
    }),
  );
} finally {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
}
