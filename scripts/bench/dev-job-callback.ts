// How long a contract's compute job takes in dev mode, from the contract call that submits it to the
// callback that brings its answer: contracts/WordCount.sol on `svc-node start --dev` (the devnet
// validator is the compute provider, from its genesis), with viem. Ten jobs one after another; prints
// JSON: each job's seconds from the call's send to the callback's block, blocks it took, and the median.
//   node dist/scripts/bench/dev-job-callback.js          (BENCH_JOBS, default 10)
import { fileURLToPath } from 'node:url';
import { createPublicClient, createWalletClient, defineChain, http, toHex as viemHex, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SvcClient, UNIT } from '../../sdk/index.js';
import { compileSolidity } from '../solidity.js';
import { benchDir, cleanUp, startNode, stopNode } from './node-process.js';
import { upperModule } from './upper-module.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 10);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const upper = await upperModule();

try {
  const { WordCount } = await compileSolidity([`${root}/contracts`]);
  const wordCount = WordCount as unknown as { abi: Abi; bytecode: Hex };
  const node = await startNode(['--dev', '--data-dir', benchDir()]);
  const chain = defineChain({
    id: 0x737663,
    name: 'dev',
    nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 20 });
  const wallet = createWalletClient({ chain, transport: http(node.url), account: privateKeyToAccount(KEY) });
  const svc = new SvcClient(node.url);
  const deployed = await publicClient.waitForTransactionReceipt({
    hash: await wallet.deployContract({ ...wordCount, value: 100n * UNIT }),
  });
  const contract = deployed.contractAddress!;
  const jobs: { seconds: number; blocks: number }[] = [];
  for (let i = 0; i < JOBS; i++) {
    const started = performance.now();
    const hash = await wallet.writeContract({
      address: contract,
      abi: wordCount.abi,
      functionName: 'count',
      args: ['', viemHex(upper), viemHex(new TextEncoder().encode(`job ${i}`)), 1_000_000n, 1n, 1],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const jobId = (await publicClient.readContract({
      address: contract,
      abi: wordCount.abi,
      functionName: 'lastJob',
    })) as Hex;
    for (;;) {
      const job = await svc.getJob(jobId);
      if (job.callback?.status) {
        if (job.callback.status !== 'success') throw new Error(`job ${jobId}: callback ${job.callback.status}`);
        jobs.push({
          seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
          blocks: job.callback.calledAt! - Number(receipt.blockNumber),
        });
        break;
      }
      await new Promise((done) => setTimeout(done, 20));
    }
  }
  await stopNode(node);
  const sorted = jobs.map((j) => j.seconds).sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      jobs,
      medianSeconds: sorted[Math.floor(sorted.length / 2)],
      medianBlocks: jobs.map((j) => j.blocks).sort((a, b) => a - b)[Math.floor(jobs.length / 2)],
    }),
  );
} finally {
  await cleanUp();
}
