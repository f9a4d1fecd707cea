// A contract test suite's loop in dev mode, against Anvil in the same run: an ERC-20
// (examples/contracts/Token.sol, compiled here with solc-js) is deployed, then N transfers are sent one
// after another with viem's `writeContract` and each awaited with `waitForTransactionReceipt`
// (pollingInterval 20 ms), as a test does. Anvil automines; svc-node runs `start --dev`. Rounds
// alternate which goes first. Prints JSON: each side's wall time per round and the ratio of medians.
//
//   node dist/scripts/bench/dev-loop.js            (N = BENCH_TRANSFERS, default 200; BENCH_ROUNDS, default 3)
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, defineChain, http, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { compileSolidity } from '../solidity.js';
import { startAnvil } from './anvil.js';
import { benchDir, cleanUp, startNode, stopNode } from './node-process.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Foundry's and Hardhat's account 0: funded on Anvil and on the devnet alike. */
const KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const RECIPIENT: Hex = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

async function loop(
  url: string,
  chainId: number,
  token: { abi: Abi; bytecode: Hex },
): Promise<{ seconds: number; msPerTransfer: number }> {
  const chain = defineChain({
    id: chainId,
    name: 'dev',
    nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(url), pollingInterval: 20 });
  const wallet = createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(KEY) });
  const deployed = await publicClient.waitForTransactionReceipt({
    hash: await wallet.deployContract({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 24n] }),
  });
  const address = deployed.contractAddress!;
  const started = performance.now();
  for (let i = 0; i < TRANSFERS; i++) {
    const hash = await wallet.writeContract({
      address,
      abi: token.abi,
      functionName: 'transfer',
      args: [RECIPIENT, 1n],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`transfer ${i} failed`);
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds: Number(seconds.toFixed(2)), msPerTransfer: Number(((seconds * 1000) / TRANSFERS).toFixed(1)) };
}

async function anvilRound(token: { abi: Abi; bytecode: Hex }) {
  const anvil = await startAnvil([]);
  try {
    return await loop(anvil.url, 31337, token);
  } finally {
    anvil.child.kill('SIGKILL');
  }
}

async function svcRound(token: { abi: Abi; bytecode: Hex }) {
  const node = await startNode(['--dev', '--data-dir', benchDir()]);
  try {
    return await loop(node.url, 0x737663, token);
  } finally {
    await stopNode(node);
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  const { Token } = await compileSolidity([join(root, 'examples/contracts')]);
  const token = Token as unknown as { abi: Abi; bytecode: Hex };
  const anvil: number[] = [];
  const svc: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating which runs first: the machine's speed drifts within minutes.
    if (round % 2 === 0) {
      anvil.push((await anvilRound(token)).seconds);
      svc.push((await svcRound(token)).seconds);
    } else {
      svc.push((await svcRound(token)).seconds);
      anvil.push((await anvilRound(token)).seconds);
    }
  }
  console.log(
    JSON.stringify({
      transfers: TRANSFERS,
      pollingIntervalMs: 20,
      anvilSeconds: anvil,
      svcSeconds: svc,
      ratio: Number((median(svc) / median(anvil)).toFixed(2)),
    }),
  );
} finally {
  await cleanUp();
}
