// Sync throughput: a validator builds a chain of BENCH_SYNC_BLOCKS blocks (default 5,000) holding
// BENCH_SYNC_TRANSFERS signed transfers (default 100,000); then a fresh node bootstrapped from it syncs
// the whole chain, re-executing and verifying every block. Prints one JSON line.
// Usage: node sync.js
import { rawTransaction, SvcClient } from '../../sdk/index.js';
import { fundedAccounts, ringTransfer } from './signed-transfers.js';
import { benchDir as tempDir, cleanUp, startNode, stopNode as stop, submitAll } from './node-process.js';

const BLOCKS = Number(process.env.BENCH_SYNC_BLOCKS ?? 5000);
const TRANSFERS = Number(process.env.BENCH_SYNC_TRANSFERS ?? 100_000);
const ACCOUNTS = 1000;

async function waitHeight(client: SvcClient, height: number, pollMs: number): Promise<void> {
  while ((await client.blockNumber()) < height) await new Promise((resolve) => setTimeout(resolve, pollMs));
}

try {
  // 1. Build the chain: fund the senders, then submit the transfers while 10 ms blocks go by. Everything
  // is signed first: signing 100,000 transfers keeps this process busy for seconds, and a node whose
  // output it did not read meanwhile would stall on a full pipe.
  const chainId = 'svc-devnet-1';
  const { accounts, funding } = fundedAccounts(chainId, ACCOUNTS);
  const perAccount = Math.ceil(TRANSFERS / ACCOUNTS);
  const raws: string[] = [];
  const lastHashes: string[] = [];
  for (let n = 0; n < perAccount; n++) {
    for (let i = 0; i < ACCOUNTS && raws.length < TRANSFERS; i++) {
      const tx = ringTransfer(chainId, accounts, i, n, 1n);
      raws.push(rawTransaction(tx));
      if (n === perAccount - 1) lastHashes.push(tx.hash);
    }
  }
  const validatorDir = tempDir();
  let validator = await startNode(['--role', 'validator', '--data-dir', validatorDir, '--block-time', '10']);
  const client = new SvcClient({ url: validator.url, timeoutMs: 120_000 });
  await submitAll(client, funding.map(rawTransaction));
  for (const tx of funding.slice(-10)) await client.waitForTransaction(tx.hash, { timeoutMs: 120_000, pollMs: 20 });
  // Submitted in slices so they spread over many blocks, as on a live chain.
  for (let i = 0; i < raws.length; i += 2000) {
    await submitAll(client, raws.slice(i, i + 2000));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await waitHeight(client, BLOCKS, 200);
  for (const hash of lastHashes) await client.waitForTransaction(hash, { timeoutMs: 300_000, pollMs: 50 });
  // 2. Freeze the chain (restart the validator with a long block time) and sync a fresh node from it.
  await stop(validator);
  validator = await startNode(['--role', 'validator', '--data-dir', validatorDir, '--block-time', '3600000']);
  const frozen = new SvcClient(validator.url);
  const height = await frozen.blockNumber();
  let transfers = 0;
  for (let h = 1; h <= height; h += 1) transfers += (await frozen.getBlockByNumber(h)).transactions.length;
  const started = performance.now();
  const follower = await startNode(['--role', 'full', '--data-dir', tempDir(), '--bootstrap-peers', validator.p2p]);
  await waitHeight(new SvcClient(follower.url), height, 20);
  const seconds = (performance.now() - started) / 1000;
  const sameRoot =
    (await new SvcClient(follower.url).getBlockByNumber(height)).stateRoot ===
    (await frozen.getBlockByNumber(height)).stateRoot;
  await stop(follower);
  await stop(validator);
  process.stdout.write(
    `${JSON.stringify({ blocks: height, transfers, seconds, blocksPerSecond: height / seconds, transfersPerSecond: transfers / seconds, sameStateRoot: sameRoot })}\n`,
  );
} finally {
  await cleanUp();
}
