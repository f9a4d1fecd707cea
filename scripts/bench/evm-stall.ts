// Can a paying user stall the chain? A devnet validator with 1 s blocks, and Anvil (--block-time 1)
// in the same run, each given:
//  - eight transactions of BENCH_STALL_GAS (the devnet's block gas limit, 12,000,000) gas to a contract that loops until its gas
//    runs out, signed by one sender and sent at once;
//  - two clients calling the same loop with eth_call (no gas given: the node's cap) without pause;
//  - a third reading eth_blockNumber every 50 ms.
// Measured from the first submission until all eight are mined and BENCH_STALL_TAIL_MS (3000) more:
// eth_blockNumber's latency (p50, p99, max), the longest time the observed block number stood still,
// and how many eth_calls finished (answered or aborted by the node's call budget). Targets: p99 < 100 ms
// and no gap over 2 s. Prints one JSON line (npm run build, then node dist/scripts/bench/evm-stall.js).
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { cleanUp, startDevnetValidator, stopNode } from './node-process.js';
import { startAnvil } from './anvil.js';
import { DEVNET_BLOCK_GAS_LIMIT } from '../../plugins/evm/params.js';

const TXS = 8;
const GAS = BigInt(process.env.BENCH_STALL_GAS ?? DEVNET_BLOCK_GAS_LIMIT);
const TAIL_MS = Number(process.env.BENCH_STALL_TAIL_MS ?? 3_000);
const POLL_MS = 50;
const KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** Init code returning the runtime JUMPDEST PUSH1 0 JUMP: a loop that ends only when its gas does. */
const LOOP_INIT = '0x6004600c60003960046000f35b600056';

const say = (what: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${what}\n`);
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

interface RpcReply {
  result?: unknown;
  error?: { code: number; message: string };
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<RpcReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as RpcReply;
}

async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const reply = await rpc(url, method, params);
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const receiptOf = (url: string, hash: string) =>
  result<{ status: string; contractAddress?: string } | null>(url, 'eth_getTransactionReceipt', [hash]);

async function measure(url: string): Promise<Record<string, number>> {
  const chainId = Number(BigInt(await result<string>(url, 'eth_chainId')));
  const owner = privateKeyToAccount(KEY_0);
  const fees = { maxFeePerGas: 5_000_000_000n, maxPriorityFeePerGas: 1n };
  let nonce = Number(BigInt(await result<string>(url, 'eth_getTransactionCount', [owner.address, 'pending'])));
  const deploy = await result<string>(url, 'eth_sendRawTransaction', [
    await owner.signTransaction({ chainId, data: LOOP_INIT, gas: 100_000n, nonce: nonce++, ...fees }),
  ]);
  const loop = (await waitFor('the loop contract', async () => (await receiptOf(url, deploy)) ?? undefined))
    .contractAddress!;
  say(`${url}: chain id ${chainId}, loop at ${loop}`);
  const loops: Hex[] = [];
  for (let i = 0; i < TXS; i++)
    loops.push(await owner.signTransaction({ chainId, to: loop as Hex, gas: GAS, nonce: nonce++, ...fees }));

  let running = true;
  const latencies: number[] = [];
  const heights: { at: number; height: number }[] = [];
  let calls = 0;
  let callsAborted = 0;
  // The eth_blockNumber reader: a request every 50 ms, each timed alone (they may overlap when one is slow).
  const pending = new Set<Promise<void>>();
  const poller = (async () => {
    const start = performance.now();
    for (let tick = 0; running; tick++) {
      const sent = performance.now();
      const request = result<string>(url, 'eth_blockNumber').then((hex) => {
        const at = performance.now();
        latencies.push(at - sent);
        heights.push({ at, height: Number(BigInt(hex)) });
      });
      pending.add(request);
      void request.finally(() => pending.delete(request));
      const due = start + (tick + 1) * POLL_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
  })();
  const callers = Array.from({ length: 2 }, async () => {
    while (running) {
      const reply = await rpc(url, 'eth_call', [{ from: owner.address, to: loop }, 'latest']);
      calls++;
      if (reply.error && /abort|timeout/i.test(reply.error.message)) callsAborted++;
    }
  });

  const started = performance.now();
  const hashes = await Promise.all(loops.map((raw) => result<string>(url, 'eth_sendRawTransaction', [raw])));
  say(`sent ${TXS} loops of ${GAS} gas; waiting for them`);
  await waitFor(
    'the loops to be mined',
    async () => ((await Promise.all(hashes.map((hash) => receiptOf(url, hash)))).every(Boolean) ? true : undefined),
    300_000,
  );
  const mined = performance.now();
  await new Promise((resolve) => setTimeout(resolve, TAIL_MS));
  running = false;
  await Promise.all([poller, ...callers, ...pending]);

  // The longest the observed block number stood still, within the measured window.
  let longestGap = 0;
  let last: { at: number; height: number } | undefined;
  for (const seen of heights.sort((a, b) => a.at - b.at)) {
    if (last && seen.height > last.height) {
      if (seen.at >= started) longestGap = Math.max(longestGap, seen.at - last.at);
      last = seen;
    } else if (!last) last = seen;
  }
  latencies.sort((a, b) => a - b);
  const blocks = heights.length > 0 ? heights.at(-1)!.height - (heights.find((h) => h.at >= started)?.height ?? 0) : 0;
  return {
    minedSeconds: Number(((mined - started) / 1000).toFixed(2)),
    blocks,
    blockNumberRequests: latencies.length,
    blockNumberP50Ms: Number(percentile(latencies, 0.5).toFixed(1)),
    blockNumberP99Ms: Number(percentile(latencies, 0.99).toFixed(1)),
    blockNumberMaxMs: Number((latencies.at(-1) ?? 0).toFixed(1)),
    longestBlockGapMs: Math.round(longestGap),
    ethCalls: calls,
    ethCallsAborted: callsAborted,
  };
}

try {
  const anvil = await startAnvil(['--block-time', '1', '--gas-limit', String(DEVNET_BLOCK_GAS_LIMIT)]);
  const anvilResult = await measure(anvil.url);
  anvil.child.kill('SIGKILL');
  const node = await startDevnetValidator();
  const svcResult = await measure(node.url);
  await stopNode(node);
  console.log(
    JSON.stringify({
      gasPerTransaction: Number(GAS),
      anvil: anvilResult,
      svc: svcResult,
      targetsMet: svcResult.blockNumberP99Ms! < 100 && svcResult.longestBlockGapMs! <= 2000,
    }),
  );
} finally {
  await cleanUp();
}
