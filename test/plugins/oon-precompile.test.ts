import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, defineChain, http, toHex as viemHex, type Abi, type Address, type Chain, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { accountAddress, devnetKey, SvcClient, UNIT } from '../../sdk/index.js';
import type { P2pService } from '../../p2p/service.js';
import { startTestNode, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';
import { contracts } from '../helpers/contracts.js';
import { fixture } from '../helpers/wat.js';
import { TEST_KEY_0 } from '../helpers/foundry.js';
import { OON_ABI, OON_PRECOMPILE_ADDRESS } from '../../plugins/oon/precompile.js';

// A validator and a compute provider, as real nodes; contracts deployed and called with viem.
let validator: TestNode;
let compute: TestNode;
let v: SvcClient;
let chain: Chain;
const artifact = (name: string): { abi: Abi; bytecode: Hex } => contracts()[name] as unknown as { abi: Abi; bytecode: Hex };
const GAS_PRICE = 1_000n;

const clients = () => ({
  publicClient: createPublicClient({ chain, transport: http(validator.url), pollingInterval: 50 }),
  wallet: createWalletClient({ chain, transport: http(validator.url), account: privateKeyToAccount(TEST_KEY_0) }),
});

async function deploy(name: string, value = 0n): Promise<Address> {
  const { publicClient, wallet } = clients();
  const { abi, bytecode } = artifact(name);
  const hash = await wallet.deployContract({ abi, bytecode, value });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt.contractAddress!;
}

beforeAll(async () => {
  validator = await startTestNode({ validator: { blockTime: 200 } });
  v = new SvcClient(validator.url);
  chain = defineChain({ id: 0x737663, name: 'svc devnet', nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 }, rpcUrls: { default: { http: [validator.url] } } });
  compute = await startTestNode({ role: 'compute', p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!] } });
  await waitFor(() => syncStatus(compute).synced, Boolean, 20_000, 'the compute node to sync');
  const c = new SvcClient(compute.url);
  const operator = compute.node.keys.operator.address;
  await v.waitForTransaction((await v.transfer(devnetKey('account', 0), operator, 'OGT', 2000n * UNIT)).hash);
  await waitFor(() => c.getBalance(operator).then((b) => b.ogt), (ogt) => ogt >= 2000n * UNIT, 20_000, 'the operator funds to reach the compute node');
  await c.oonRegisterNode({ operator, capabilities: ['wasm', 'evm'], bond_ogt: 1000, max_concurrent_jobs: 2 });
  await waitFor(() => c.oonNodeStatus(), (status) => status.status === 'active', 20_000, 'the registration to be mined');
}, 120_000);
afterAll(async () => {
  await compute?.stop();
  await validator?.stop();
});

describe('the OON precompile', { timeout: 120_000 }, () => {
  it("lets a contract pay for a WASM job from its OMC; the chain calls it back with the verified output, and eth_call reads it", async () => {
    const { publicClient, wallet } = clients();
    const { abi } = artifact('WordCount');
    const contract = await deploy('WordCount', 10n * UNIT);
    const svcContract = accountAddress(contract);
    const before = (await v.getBalance(svcContract)).omc;
    const code = viemHex(fixture('upper'));
    const hash = await wallet.writeContract({ address: contract, abi, functionName: 'count', args: ['', code, viemHex(new TextEncoder().encode('count me')), 1_000_000n, GAS_PRICE, 1] });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const jobId = (await publicClient.readContract({ address: contract, abi, functionName: 'lastJob' })) as Hex;
    // Escrowed from the contract: the job's gas and its callback's, at the job's price.
    const escrow = 1_000_000n * GAS_PRICE + 200_000n * GAS_PRICE;
    expect((await v.getBalance(svcContract)).omc).toBe(before - escrow);
    expect(await v.getJob(jobId)).toMatchObject({ requester: svcContract, escrow: escrow.toString(), callback: { selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), gasLimit: '200000', status: null } });
    const job = await v.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job).toMatchObject({ status: 'finalized', exit: 'exit:0', escrow: '0' });
    // The callback ran in the block that finalized the job, and kept the output.
    expect(job.callback).toMatchObject({ status: 'success', calledAt: job.finalizedAt, revert: null });
    const answer = (await publicClient.readContract({ address: contract, abi, functionName: 'answers', args: [jobId] })) as Hex;
    expect(Buffer.from(answer.slice(2), 'hex').toString()).toBe('COUNT ME');
    // The job's fee and the callback's gas left the contract; the rest came back.
    const callbackFee = BigInt(job.callback!.gasUsed!) * GAS_PRICE;
    expect((await v.getBalance(svcContract)).omc).toBe(before - BigInt(job.fee!) - callbackFee);
    // jobStatus from eth_call answers what svc_oonGetJob does.
    const [status, requester, exit, outputHash, gasUsed, fee, output] = (await publicClient.readContract({ address: OON_PRECOMPILE_ADDRESS, abi: OON_ABI, functionName: 'jobStatus', args: [jobId] })) as [number, Address, string, Hex, bigint, bigint, Hex];
    expect({ status, requester: requester.toLowerCase(), exit, outputHash, gasUsed: gasUsed.toString(), fee: fee.toString(), output }).toEqual({
      status: 4,
      requester: contract.toLowerCase(),
      exit: 'exit:0',
      outputHash: job.outputHash,
      gasUsed: job.gasUsed,
      fee: job.fee,
      output: job.output,
    });
  });
});
