// Signed-transfer throughput: 10,000 pre-signed transfers from 1,000 accounts, submitted as fast as
// JSON-RPC batches allow; measures submission to inclusion, and svc_getBalance latency meanwhile.
// With BENCH_RATE (transfers per second), submitted at that steady rate instead, in 20 batches a
// second: a load below what the node can take, for latency figures that are not queueing.
// Prints one JSON line. Usage: node transfers.js <rpcUrl>
import { devnetKey, rawTransaction, SvcClient, UNIT } from '../../sdk/index.js';
import { fundedAccounts, ringTransfer } from './signed-transfers.js';
import { startBalanceProbe, submitAll, submitPaced } from './node-process.js';

const url = process.argv[2]!;
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1000);
const PER_ACCOUNT = Number(process.env.BENCH_PER_ACCOUNT ?? 10);
const client = new SvcClient({ url, timeoutMs: 120_000 });
const chainId = (await client.chainInfo()).chainId;
const RATE = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);

async function waitMined(hashes: string[]): Promise<void> {
  // Receipts of the last transactions of each sender imply the rest (nonces are sequential).
  for (const hash of hashes) await client.waitForTransaction(hash, { timeoutMs: 300_000, pollMs: 20 });
}

// 1. Fund the accounts from the 10 dev accounts (not measured).
const devNonces = await Promise.all(
  Array.from({ length: 10 }, (_, i) => client.getNonce(devnetKey('account', i).address)),
);
const { accounts, funding } = fundedAccounts(chainId, ACCOUNTS, devNonces);
await submitAll(client, funding.map(rawTransaction), CONNECTIONS, 'svc_sendRawTransaction', BATCH);
await waitMined(funding.slice(-devNonces.length).map((tx) => tx.hash));

// 2. Pre-sign the measured transfers.
const transfers = accounts.flatMap((_account, i) =>
  Array.from({ length: PER_ACCOUNT }, (_, n) => ringTransfer(chainId, accounts, i, n, UNIT)),
);
// Interleave senders so batches spread over accounts, in nonce order per sender.
const ordered = Array.from({ length: PER_ACCOUNT }, (_, n) =>
  transfers.filter((_, idx) => idx % PER_ACCOUNT === n),
).flat();
const raws = ordered.map(rawTransaction);

// 3. Measure: two independent readers (their own processes) call svc_getBalance every 5 ms meanwhile.
const PROBE_INTERVAL_MS = process.env.BENCH_PROBE_INTERVAL_MS ?? '5';
const probes = await Promise.all(
  [0, 1].map((p) => startBalanceProbe(url, accounts[(p * 97) % accounts.length]!.address, PROBE_INTERVAL_MS)),
);
const startHeight = await client.blockNumber();
const startedAt = Date.now();
const started = performance.now();
if (RATE === undefined) await submitAll(client, raws, CONNECTIONS, 'svc_sendRawTransaction', BATCH);
else await submitPaced(client, raws, RATE);
const submitted = performance.now();
// Follow the blocks until they hold every measured transfer; the last one's timestamp ends the run.
const wanted = new Set<string>(ordered.map((tx) => tx.hash));
let height = startHeight + 1;
let lastTimestamp = startedAt;
while (wanted.size > 0) {
  if ((await client.blockNumber()) < height) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    continue;
  }
  const block = await client.getBlockByNumber(height++);
  for (const hash of block.transactions) if (wanted.delete(hash)) lastTimestamp = block.timestamp;
}
const mined = started + (lastTimestamp - startedAt);
for (const probe of probes) probe.child.stdin!.end();
const probeResults = await Promise.all(probes.map((p) => p.result));
const endHeight = await client.blockNumber();
const balanceCalls = probeResults.reduce((sum, r) => sum + r.calls, 0);
process.stdout.write(
  `${JSON.stringify({
    transfers: raws.length,
    accounts: ACCOUNTS,
    submitSeconds: (submitted - started) / 1000,
    inclusionSeconds: (mined - started) / 1000,
    transfersPerSecond: raws.length / ((mined - started) / 1000),
    blocks: endHeight - startHeight,
    balanceCalls,
    balanceP50Ms: Math.max(...probeResults.map((r) => r.p50Ms)),
    balanceP99Ms: Math.max(...probeResults.map((r) => r.p99Ms)),
  })}\n`,
);
