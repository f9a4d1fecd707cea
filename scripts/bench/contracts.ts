// Contracts against Anvil: the same client (viem), the same workload, the same machine, one after the
// other in one run. Anvil is the npm package's binary (@foundry-rs/anvil, --block-time 1); svc-node is
// a devnet validator with 1 s blocks. For each:
//  1. an ERC-20 (examples/contracts/Token.sol, compiled here with solc-js) is deployed, and 40
//     senders get OMC/ETH for gas and tokens (not measured);
//  2. N pre-signed ERC-20 transfers (N/40 per sender) go through viem's sendRawTransaction over HTTP
//     (BENCH_CONNECTIONS at a time), timed from the first submission until every sender's nonce is
//     mined: transfers per second;
//  3. eth_call of balanceOf from BENCH_CALLERS concurrent callers for BENCH_CALL_SECONDS: calls per
//     second and p99, while nothing else runs.
// Prints one JSON line with both and the ratios. Env: BENCH_TRANSFERS (4000), BENCH_CONNECTIONS (16),
// BENCH_CALLERS (16), BENCH_CALL_SECONDS (5), BENCH_BLOCK_GAS (both sides' block gas limit, default the
// devnet's; another makes svc-node a one-validator network of its own with that limit in its genesis),
// BENCH_SVC_BIN (another build's svc-node entry).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { cleanUp, cpuSeconds, startDevnetValidator, startNetworkWith, stopNode } from './node-process.js';
import { compileSolidity } from '../solidity.js';
import { startAnvil } from './anvil.js';
import { DEVNET_BLOCK_GAS_LIMIT } from '../../plugins/evm/params.js';

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 4000);
const SENDERS = 40;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const CALLERS = Number(process.env.BENCH_CALLERS ?? 16);
const CALL_SECONDS = Number(process.env.BENCH_CALL_SECONDS ?? 5);
const BLOCK_GAS = process.env.BENCH_BLOCK_GAS ?? String(DEVNET_BLOCK_GAS_LIMIT);
/** How long the wait for the transfers may see no sender's nonce move before it gives up. */
const STALL_MS = 60_000;
const KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

async function compileToken(): Promise<{ abi: Abi; bytecode: Hex }> {
  const { Token } = await compileSolidity([join(root, 'examples/contracts')]);
  return Token as unknown as { abi: Abi; bytecode: Hex };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

const say = (what: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${what}\n`);

async function measure(
  url: string,
  token: { abi: Abi; bytecode: Hex },
  server: { readonly pid?: number | undefined },
): Promise<Record<string, number | null>> {
  const reply = (await (
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
    })
  ).json()) as { result: string };
  const chainId = Number(BigInt(reply.result));
  const chain = defineChain({
    id: chainId,
    name: 'bench',
    nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const client = createPublicClient({
    chain,
    transport: http(url, { timeout: 10_000 }),
    pollingInterval: 50,
  }) as PublicClient;
  const owner = privateKeyToAccount(KEY_0);
  const wallet = createWalletClient({ chain, transport: http(url, { timeout: 120_000 }), account: owner });
  say(`${url}: chain id ${chainId}, deploying the token`);
  const tokenAddress = (
    await client.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 30n] }),
    })
  ).contractAddress!;
  // Senders: OMC for gas and tokens to move (not measured).
  const senders: PrivateKeyAccount[] = Array.from({ length: SENDERS }, () => privateKeyToAccount(generatePrivateKey()));
  let nonce = await client.getTransactionCount({ address: owner.address });
  const fees = { maxFeePerGas: 5_000_000_000n, maxPriorityFeePerGas: 1n };
  const funding: Hex[] = [];
  for (const sender of senders) {
    funding.push(
      await owner.signTransaction({
        chainId,
        to: sender.address,
        value: 10n ** 18n,
        gas: 21_000n,
        nonce: nonce++,
        ...fees,
      }),
    );
    funding.push(
      await owner.signTransaction({
        chainId,
        to: tokenAddress,
        data: encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [sender.address, 10n ** 24n] }),
        gas: 100_000n,
        nonce: nonce++,
        ...fees,
      }),
    );
  }
  for (const raw of funding) await client.sendRawTransaction({ serializedTransaction: raw });
  await client.waitForTransactionReceipt({
    hash: await client.sendRawTransaction({
      serializedTransaction: await owner.signTransaction({
        chainId,
        to: owner.address,
        value: 0n,
        gas: 21_000n,
        nonce: nonce++,
        ...fees,
      }),
    }),
  });
  say(`funded ${SENDERS} senders; signing ${TRANSFERS} transfers`);
  // The measured transfers, pre-signed, senders interleaved in nonce order.
  const perSender = Math.ceil(TRANSFERS / SENDERS);
  const signed: Hex[] = [];
  for (let n = 0; n < perSender; n++) {
    for (const [i, sender] of senders.entries()) {
      const to = senders[(i + n + 1) % SENDERS]!.address;
      signed.push(
        await sender.signTransaction({
          chainId,
          to: tokenAddress,
          data: encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [to, 1n] }),
          gas: 60_000n,
          nonce: n,
          ...fees,
        }),
      );
    }
  }
  const started = performance.now();
  const [serverCpu0, clientCpu0] = [cpuSeconds(server), process.cpuUsage()];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < signed.length) await client.sendRawTransaction({ serializedTransaction: signed[next++]! });
    }),
  );
  const submitted = performance.now();
  say(`submitted in ${((submitted - started) / 1000).toFixed(1)} s; waiting for every nonce`);
  // Every sender's nonce, until all are mined or none moves for STALL_MS: a server that dropped some
  // transfers would otherwise be waited for forever.
  const nonces = new Map<Address, number>(senders.map((s) => [s.address, 0]));
  let movedAt = performance.now();
  while ([...nonces.values()].some((count) => count < perSender)) {
    for (const [address, count] of nonces) {
      if (count >= perSender) continue;
      const now = await client.getTransactionCount({ address });
      if (now > count) {
        nonces.set(address, now);
        movedAt = performance.now();
      }
    }
    if (performance.now() - movedAt > STALL_MS) {
      const short = [...nonces.values()].filter((count) => count < perSender);
      throw new Error(
        `${url}: no transfer mined for ${STALL_MS / 1000} s; ${short.length} senders short of ${perSender} (at ${short.slice(0, 5).join(', ')}…)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const mined = performance.now();
  const [serverCpu1, clientCpu1] = [cpuSeconds(server), process.cpuUsage(clientCpu0)];
  say(`mined in ${((mined - started) / 1000).toFixed(1)} s; eth_call for ${CALL_SECONDS} s`);
  // eth_call of balanceOf, nothing else running.
  const latencies: number[] = [];
  const serverCpu2 = cpuSeconds(server);
  const until = performance.now() + CALL_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, c) => {
      while (performance.now() < until) {
        const t = performance.now();
        await client.readContract({
          address: tokenAddress,
          abi: token.abi,
          functionName: 'balanceOf',
          args: [senders[c % SENDERS]!.address],
        });
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const serverCpu3 = cpuSeconds(server);
  return {
    transfers: signed.length,
    transfersPerSecond: Math.round((signed.length / (mined - started)) * 1000),
    submitSeconds: Number(((submitted - started) / 1000).toFixed(2)),
    minedSeconds: Number(((mined - started) / 1000).toFixed(2)),
    callsPerSecond: Math.round(latencies.length / CALL_SECONDS),
    callP50Ms: Number(percentile(latencies, 0.5).toFixed(2)),
    callP99Ms: Number(percentile(latencies, 0.99).toFixed(2)),
    // Where the transfer phase's CPU went (from /proc for the server, process.cpuUsage for this client).
    serverCpuMsPerTransfer: Number((((serverCpu1 - serverCpu0) * 1000) / signed.length).toFixed(3)),
    clientCpuMsPerTransfer: Number(((clientCpu1.user + clientCpu1.system) / 1000 / signed.length).toFixed(3)),
    serverCpuMsPerCall:
      latencies.length > 0 ? Number((((serverCpu3 - serverCpu2) * 1000) / latencies.length).toFixed(3)) : null,
  };
}

try {
  const token = await compileToken();
  const anvil = await startAnvil(['--block-time', '1', '--gas-limit', BLOCK_GAS]);
  const anvilResult = await measure(anvil.url, token, anvil.child);
  anvil.child.kill('SIGKILL');
  // Another block gas limit than the devnet's needs a network of its own (the limit is a genesis parameter).
  const node =
    BLOCK_GAS === String(DEVNET_BLOCK_GAS_LIMIT)
      ? await startDevnetValidator()
      : await startNetworkWith({ blockGasLimit: Number(BLOCK_GAS) }, 1000);
  const svcResult = await measure(node.url, token, node);
  await stopNode(node);
  console.log(
    JSON.stringify({
      anvil: anvilResult,
      svc: svcResult,
      transfersRatio: Number((svcResult.transfersPerSecond! / anvilResult.transfersPerSecond!).toFixed(2)),
      callsRatio: Number((svcResult.callsPerSecond! / anvilResult.callsPerSecond!).toFixed(2)),
      serverCpuPerTransferRatio: Number(
        (svcResult.serverCpuMsPerTransfer! / anvilResult.serverCpuMsPerTransfer!).toFixed(2),
      ),
    }),
  );
} finally {
  await cleanUp();
}
