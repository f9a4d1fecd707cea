// A job a contract submits through the OON precompile against the same job submitted directly
// (`oon.submitJob`), same run: how many blocks each takes from submission to the end (the contract's
// to its callback), the callback's gas and the contract call's, and the CPU per job of the validator
// and the compute node for a batch of each. Usage (after `npm run build`):
//   node dist/scripts/bench/contract-jobs.js          (BENCH_BLOCK_TIME ms, default 1000; BENCH_JOBS per batch, default 20)
import { fileURLToPath } from 'node:url';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  toHex as viemHex,
  type Abi,
  type Address,
  type Hex,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { devnetKey, SvcClient, UNIT, type JobView } from '../../sdk/index.js';
import { compileSolidity } from '../solidity.js';
import { benchDir, cleanUp, cpuSeconds, startNode, type NodeProcess } from './node-process.js';
import { upperModule } from './upper-module.js';

const blockTime = process.env.BENCH_BLOCK_TIME ?? '1000';
const batch = Number(process.env.BENCH_JOBS ?? 20);
const ROUNDS = 5;
const GAS_PRICE = 1n;
const root = fileURLToPath(new URL('../../..', import.meta.url));
const upper = await upperModule();

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  const validator = await startNode(['--role', 'validator', '--data-dir', benchDir(), '--block-time', blockTime]);
  const compute = await startNode(['--role', 'compute', '--data-dir', benchDir(), '--bootstrap-peers', validator.p2p]);
  const v = new SvcClient(validator.url);
  const c = new SvcClient(compute.url);
  const operator = (await c.nodeInfo()).operator;
  await v.waitForTransaction((await v.transfer(devnetKey('account', 0), operator, 'OGT', 2000n * UNIT)).hash);
  for (;;) {
    if ((await c.getBalance(operator)).ogt >= 2000n * UNIT) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await c.oonRegisterNode({ operator, capabilities: ['wasm'], bond_ogt: 1000, max_concurrent_jobs: 64 });
  while ((await c.oonNodeStatus()).status !== 'active') await new Promise((resolve) => setTimeout(resolve, 200));

  const chain = defineChain({
    id: 0x737663,
    name: 'svc devnet',
    nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
    rpcUrls: { default: { http: [validator.url] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(validator.url), pollingInterval: 100 });
  const wallet = createWalletClient({
    chain,
    transport: http(validator.url),
    account: mnemonicToAccount('test test test test test test test test test test test junk'),
  });
  const wordCount = (await compileSolidity([`${root}/contracts`])).WordCount as unknown as { abi: Abi; bytecode: Hex };
  const deployed = await publicClient.waitForTransactionReceipt({
    hash: await wallet.deployContract({ ...wordCount, value: 1000n * UNIT }),
  });
  const contract = deployed.contractAddress as Address;
  const requester = devnetKey('account', 1);
  const input = viemHex(new TextEncoder().encode('hello, contracts'));

  const direct = async (): Promise<{ jobId: string; block: number }> => {
    const { jobId, txHash } = await v.submitJob(requester, {
      runtime: 'wasm',
      code: upper,
      input: new TextEncoder().encode('hello, contracts'),
      gasLimit: 1_000_000n,
      gasPrice: GAS_PRICE,
    });
    return { jobId, block: (await v.waitForTransaction(txHash)).blockNumber };
  };
  const viaContract = async (): Promise<{ jobId: string; block: number; gas: bigint }> => {
    const hash = await wallet.writeContract({
      address: contract,
      abi: wordCount.abi,
      functionName: 'count',
      args: ['', viemHex(upper), input, 1_000_000n, GAS_PRICE, 1],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const jobId = (await publicClient.readContract({
      address: contract,
      abi: wordCount.abi,
      functionName: 'lastJob',
      blockNumber: receipt.blockNumber,
    })) as string;
    return { jobId, block: Number(receipt.blockNumber), gas: receipt.gasUsed };
  };
  const settled = (job: JobView): number => job.callback?.calledAt ?? job.finalizedAt!;

  // Latency in blocks, the two side by side in each round.
  const rounds: { direct: number; contract: number; callbackGas: number; callGas: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const [d, k] = await Promise.all([direct(), viaContract()]);
    const [dj, kj] = await Promise.all([
      v.waitForJob(d.jobId, { timeoutMs: 120_000 }),
      v.waitForJob(k.jobId, { timeoutMs: 120_000 }),
    ]);
    if (kj.callback?.status !== 'success')
      throw new Error(`the contract's callback ${kj.callback?.status}: ${kj.callback?.revert}`);
    rounds.push({
      direct: settled(dj) - d.block,
      contract: settled(kj) - k.block,
      callbackGas: Number(kj.callback.gasUsed),
      callGas: Number(k.gas),
    });
  }

  // CPU per job: a batch of each, the idle block production of the same time taken out.
  const processes: [string, NodeProcess][] = [
    ['validator', validator],
    ['compute', compute],
  ];
  const cpu = (): number[] => processes.map(([, p]) => cpuSeconds(p));
  const idleStart = cpu();
  const idleAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const idlePerSecond = cpu().map((s, i) => (s - idleStart[i]!) / ((performance.now() - idleAt) / 1000));
  const perJob = async (submit: () => Promise<{ jobId: string }>): Promise<number[]> => {
    const before = cpu();
    const at = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < batch; i++) ids.push((await submit()).jobId);
    await Promise.all(ids.map((id) => v.waitForJob(id, { timeoutMs: 300_000 })));
    const seconds = (performance.now() - at) / 1000;
    return cpu().map((s, i) => (s - before[i]! - idlePerSecond[i]! * seconds) / batch);
  };
  const directCpu = await perJob(direct);
  const contractCpu = await perJob(viaContract);
  const result = {
    blockTimeMs: Number(blockTime),
    blocksToSettle: {
      direct: rounds.map((r) => r.direct),
      contract: rounds.map((r) => r.contract),
      medianDirect: median(rounds.map((r) => r.direct)),
      medianContract: median(rounds.map((r) => r.contract)),
    },
    callbackGas: median(rounds.map((r) => r.callbackGas)),
    contractCallGas: median(rounds.map((r) => r.callGas)),
    cpuMsPerJob: Object.fromEntries(
      processes.map(([name], i) => [
        name,
        { direct: +(directCpu[i]! * 1000).toFixed(2), contract: +(contractCpu[i]! * 1000).toFixed(2) },
      ]),
    ),
    batch,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    `| ${blockTime} ms blocks | direct ${result.blocksToSettle.medianDirect} blocks | contract ${result.blocksToSettle.medianContract} blocks (to the callback) | callback ${result.callbackGas} gas, count() ${result.contractCallGas} gas | CPU ms/job validator ${result.cpuMsPerJob.validator!.direct} → ${result.cpuMsPerJob.validator!.contract}, compute ${result.cpuMsPerJob.compute!.direct} → ${result.cpuMsPerJob.compute!.contract} |\n`,
  );
} finally {
  await cleanUp();
}
