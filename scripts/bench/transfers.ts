// Signed-transfer throughput: 10,000 pre-signed transfers from 1,000 accounts, submitted as fast as
// JSON-RPC batches allow; measures submission to inclusion, and svc_getBalance latency meanwhile.
// Prints one JSON line. Usage: node transfers.js <rpcUrl>
import { devnetKey, generateKeyPair, rawTransaction, signTransaction, SvcClient, transferPayload, UNIT, type KeyPair } from '../../sdk/index.js';

const url = process.argv[2]!;
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1000);
const PER_ACCOUNT = Number(process.env.BENCH_PER_ACCOUNT ?? 10);
const client = new SvcClient({ url, timeoutMs: 120_000 });
const chainId = (await client.chainInfo()).chainId;

async function submitAll(raws: string[], connections = Number(process.env.BENCH_CONNECTIONS ?? 8), batchSize = Number(process.env.BENCH_BATCH ?? 100)): Promise<void> {
  const batches: string[][] = [];
  for (let i = 0; i < raws.length; i += batchSize) batches.push(raws.slice(i, i + batchSize));
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        const results = await client.batch(batch.map((raw) => ({ method: 'svc_sendRawTransaction', params: [raw] })));
        const failed = results.find((r) => !r.ok);
        if (failed && !failed.ok) throw new Error(`submission refused: ${failed.error.message} ${failed.error.data?.reason ?? ''}`);
      }
    }),
  );
}

async function waitMined(hashes: string[]): Promise<void> {
  // Receipts of the last transactions of each sender imply the rest (nonces are sequential).
  for (const hash of hashes) await client.waitForTransaction(hash, { timeoutMs: 300_000, pollMs: 20 });
}

// 1. Fund the accounts from the 10 dev accounts (not measured).
const accounts: KeyPair[] = Array.from({ length: ACCOUNTS }, () => generateKeyPair());
const dev = Array.from({ length: 10 }, (_, i) => devnetKey('account', i));
const devNonces = await Promise.all(dev.map((k) => client.getNonce(k.address)));
const funding = accounts.map((account, i) => {
  const from = i % dev.length;
  return signTransaction({ chainId, kind: 'transfer', nonce: devNonces[from]!++, payload: transferPayload(account.address, 'OMC', 1000n * UNIT) }, dev[from]!);
});
await submitAll(funding.map(rawTransaction));
await waitMined(funding.slice(-dev.length).map((tx) => tx.hash));

// 2. Pre-sign the measured transfers.
const transfers = accounts.flatMap((account, i) =>
  Array.from({ length: PER_ACCOUNT }, (_, n) => signTransaction({ chainId, kind: 'transfer', nonce: n, payload: transferPayload(accounts[(i + n + 1) % ACCOUNTS]!.address, 'OMC', UNIT) }, account)),
);
// Interleave senders so batches spread over accounts, in nonce order per sender.
const ordered = Array.from({ length: PER_ACCOUNT }, (_, n) => transfers.filter((_, idx) => idx % PER_ACCOUNT === n)).flat();
const raws = ordered.map(rawTransaction);

// 3. Measure: getBalance latency in the background while submitting and mining.
const latencies: number[] = [];
let probing = true;
// Two readers, each asking every 5 ms (about 400 calls/s): a wallet-and-explorer load beside the flood.
const PROBE_INTERVAL_MS = Number(process.env.BENCH_PROBE_INTERVAL_MS ?? 5);
const probes = Array.from({ length: 2 }, async (_, p) => {
  while (probing) {
    const started = performance.now();
    await client.getBalance(accounts[(p * 97 + latencies.length) % ACCOUNTS]!.address);
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
});
const startHeight = await client.blockNumber();
const startedAt = Date.now();
const started = performance.now();
await submitAll(raws);
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
probing = false;
await Promise.all(probes);
const endHeight = await client.blockNumber();

latencies.sort((a, b) => a - b);
const pct = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
process.stdout.write(
  `${JSON.stringify({
    transfers: raws.length,
    accounts: ACCOUNTS,
    submitSeconds: (submitted - started) / 1000,
    inclusionSeconds: (mined - started) / 1000,
    transfersPerSecond: raws.length / ((mined - started) / 1000),
    blocks: endHeight - startHeight,
    balanceCalls: latencies.length,
    balanceP50Ms: pct(0.5),
    balanceP99Ms: pct(0.99),
  })}\n`,
);
