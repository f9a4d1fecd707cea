import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  webSocket,
  type Abi,
  type Chain,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider } from 'ethers';
import { startTestNode, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';
import { TEST_ADDRESS_0, TEST_ADDRESS_1, TEST_KEY_0, TEST_KEY_1 } from '../../helpers/foundry.js';

const artifact = (name: string): { abi: Abi; bytecode: Hex } =>
  contracts()[name] as unknown as { abi: Abi; bytecode: Hex };

describe('viem and ethers v6 against a node, unchanged', () => {
  let node: TestNode;
  let chain: Chain;
  let token: Address;
  let probe: Address;

  const clients = () => {
    const publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 });
    const wallet = createWalletClient({ chain, transport: http(node.url), account: privateKeyToAccount(TEST_KEY_0) });
    return { publicClient, wallet };
  };

  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 100 } });
    chain = defineChain({
      id: 0x737663,
      name: 'svc devnet',
      nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
      rpcUrls: { default: { http: [node.url], webSocket: [node.wsUrl] } },
    });
    const { publicClient, wallet } = clients();
    const deploy = async (name: string, args: unknown[] = []) => {
      const { abi, bytecode } = artifact(name);
      const hash = await wallet.deployContract({ abi, bytecode, args });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      return receipt.contractAddress!;
    };
    token = await deploy('Token', [10n ** 24n]);
    probe = await deploy('Probe');
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('viem writes with EIP-1559 and legacy transactions, waits for receipts and reads the result', async () => {
    const { publicClient, wallet } = clients();
    const { abi } = artifact('Token');
    const eip1559 = await wallet.writeContract({
      address: token,
      abi,
      functionName: 'transfer',
      args: [TEST_ADDRESS_1, 100n],
    });
    const legacy = await wallet.writeContract({
      address: token,
      abi,
      functionName: 'transfer',
      args: [TEST_ADDRESS_1, 23n],
      type: 'legacy',
      gasPrice: 2_000_000_000n,
    });
    const [first, second] = await Promise.all([
      publicClient.waitForTransactionReceipt({ hash: eip1559 }),
      publicClient.waitForTransactionReceipt({ hash: legacy }),
    ]);
    expect([first.status, first.type, second.status, second.type]).toEqual(['success', 'eip1559', 'success', 'legacy']);
    expect(second.effectiveGasPrice).toBe(2_000_000_000n);
    expect(
      await publicClient.readContract({ address: token, abi, functionName: 'balanceOf', args: [TEST_ADDRESS_1] }),
    ).toBe(123n);
    const tx = await publicClient.getTransaction({ hash: legacy });
    expect(tx.from.toLowerCase()).toBe(wallet.account.address.toLowerCase());
    expect(tx.type).toBe('legacy');
  });

  it('viem estimates gas, and filters logs by topic', async () => {
    const { publicClient, wallet } = clients();
    const { abi } = artifact('Token');
    const estimate = await publicClient.estimateContractGas({
      address: token,
      abi,
      functionName: 'transfer',
      args: [TEST_ADDRESS_1, 1n],
      account: wallet.account,
    });
    const hash = await wallet.writeContract({
      address: token,
      abi,
      functionName: 'transfer',
      args: [TEST_ADDRESS_1, 1n],
      gas: estimate,
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(receipt.gasUsed).toBeLessThanOrEqual(estimate);
    const logs = await publicClient.getContractEvents({
      address: token,
      abi,
      eventName: 'Transfer',
      args: { to: TEST_ADDRESS_1 },
      fromBlock: 0n,
    });
    expect(logs.length).toBe(3);
    expect(logs.every((log) => (log.args as { to: string }).to.toLowerCase() === TEST_ADDRESS_1.toLowerCase())).toBe(
      true,
    );
    expect(
      await publicClient.getContractEvents({
        address: token,
        abi,
        eventName: 'Transfer',
        args: { to: probe },
        fromBlock: 0n,
      }),
    ).toEqual([]);
  });

  it('an ERC-20 transfer goes through as type 0, 1 and 2 (the typed ones with an access list) with exactly the gas eth_estimateGas gives', async () => {
    const { publicClient, wallet } = clients();
    const { abi } = artifact('Token');
    const gasPrice = 2n * (await publicClient.getGasPrice());
    const accessList = [{ address: token, storageKeys: [] as Hex[] }];
    const before = (await publicClient.readContract({
      address: token,
      abi,
      functionName: 'balanceOf',
      args: [TEST_ADDRESS_1],
    })) as bigint;
    const variants = [
      { type: 'legacy' as const, gasPrice },
      { type: 'eip2930' as const, gasPrice, accessList },
      { type: 'eip1559' as const, maxFeePerGas: gasPrice, maxPriorityFeePerGas: 0n, accessList },
    ];
    for (const fees of variants) {
      const request = {
        address: token,
        abi,
        functionName: 'transfer',
        args: [TEST_ADDRESS_1, 5n],
        account: wallet.account,
        ...fees,
      } as const;
      const gas = await publicClient.estimateContractGas(request);
      const hash = await wallet.writeContract({ ...request, gas });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      expect([receipt.type, receipt.status], fees.type).toEqual([fees.type, 'success']);
      expect(receipt.gasUsed).toBeLessThanOrEqual(gas);
    }
    expect(
      await publicClient.readContract({ address: token, abi, functionName: 'balanceOf', args: [TEST_ADDRESS_1] }),
    ).toBe(before + 15n);
  });

  it('eth_estimateGas of a plain value transfer to an account without code answers 21000, as every Ethereum node does', async () => {
    const { publicClient, wallet } = clients();
    expect(await publicClient.estimateGas({ account: wallet.account, to: TEST_ADDRESS_1 as Address, value: 1n })).toBe(
      21_000n,
    );
    expect(
      await publicClient.estimateGas({
        account: wallet.account,
        to: privateKeyToAccount(TEST_KEY_1).address,
        value: 0n,
      }),
    ).toBe(21_000n);
  });

  it('viem watches contract events over WebSocket (eth_subscribe logs)', async () => {
    const { wallet } = clients();
    const { abi } = artifact('Token');
    const ws = createPublicClient({ chain, transport: webSocket(node.wsUrl) });
    const seen = new Promise<unknown[]>((resolve) => {
      const stop = ws.watchContractEvent({
        address: token,
        abi,
        eventName: 'Transfer',
        onLogs: (logs) => {
          stop();
          resolve(logs);
        },
      });
    });
    // Subscribed before the transfer is sent: the subscription reply comes first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const hash = await wallet.writeContract({
      address: token,
      abi,
      functionName: 'transfer',
      args: [TEST_ADDRESS_1, 7n],
    });
    const logs = (await seen) as { transactionHash: string; args: { value: bigint } }[];
    expect(logs[0]!.transactionHash).toBe(hash);
    expect(logs[0]!.args.value).toBe(7n);
    await ws.transport.getRpcClient().then((client) => client.close());
  });

  it('viem decodes a revert with Error(string), a Panic and a custom error', async () => {
    const { publicClient, wallet } = clients();
    const { abi } = artifact('Probe');
    const revertOf = async (functionName: string, args: unknown[] = []) => {
      try {
        await publicClient.simulateContract({ address: probe, abi, functionName, args, account: wallet.account });
      } catch (error) {
        const reverted = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
        if (reverted instanceof ContractFunctionRevertedError) return reverted;
      }
      throw new Error(`${functionName} did not revert`);
    };
    expect((await revertOf('failWithReason')).reason).toBe('no way');
    expect((await revertOf('failWithPanic', [0n])).data?.errorName).toBe('Panic');
    expect((await revertOf('failWithPanic', [0n])).data?.args).toEqual([0x12n]);
    const custom = await revertOf('failWithCustom');
    expect(custom.data?.errorName).toBe('Custom');
    expect(custom.data?.args).toEqual([7n, 'custom']);
    // eth_estimateGas on a reverting call answers the same way.
    await expect(
      publicClient.estimateContractGas({
        address: probe,
        abi,
        functionName: 'failWithReason',
        account: wallet.account,
      }),
    ).rejects.toThrow(/no way/);
  });

  it('ethers v6 deploys, sends, reads, and hears its events with contract.on over WebSocket', async () => {
    // ethers answers an identical request from a 250 ms cache: with 100 ms blocks the pending nonce it
    // read for the deploy would still be served for the next send (as against any fast dev chain).
    const provider = new JsonRpcProvider(node.url, undefined, { polling: true, pollingInterval: 50, cacheTimeout: -1 });
    const signer = new Wallet(TEST_KEY_1, provider);
    const { abi, bytecode } = contracts().Token!;
    const deployed = await new ContractFactory(abi as never, bytecode, signer).deploy(5000n);
    await deployed.waitForDeployment();
    const address = await deployed.getAddress();
    const wsProvider = new WebSocketProvider(node.wsUrl);
    const watched = new Contract(address, abi as never, wsProvider);
    const heard = new Promise<bigint>(
      (resolve) => void watched.on('Transfer', (_from, _to, value: bigint) => resolve(value)),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const contract = new Contract(address, abi as never, signer);
    const sent = await (
      contract.transfer as (to: string, value: bigint) => Promise<{ wait(): Promise<{ status: number }> }>
    )(TEST_ADDRESS_0, 42n);
    expect((await sent.wait()).status).toBe(1);
    expect(await heard).toBe(42n);
    expect(await (contract.balanceOf as (a: string) => Promise<bigint>)(TEST_ADDRESS_0)).toBe(42n);
    expect(await (contract.balanceOf as (a: string) => Promise<bigint>)(TEST_ADDRESS_1)).toBe(5000n - 42n);
    // ethers leaves a custom error of a send undecoded (against geth too); the revert bytes it carries decode with the ABI.
    const failure = await (contract.transfer as (to: string, value: bigint) => Promise<unknown>)(
      TEST_ADDRESS_0,
      10n ** 30n,
    ).catch((error: { data?: string }) => error);
    expect(contract.interface.parseError((failure as { data: string }).data)?.name).toBe('InsufficientBalance');
    await expect(
      (contract.transfer as { staticCall(to: string, value: bigint): Promise<unknown> }).staticCall(
        TEST_ADDRESS_0,
        10n ** 30n,
      ),
    ).rejects.toThrow(/InsufficientBalance/);
    await wsProvider.destroy();
    provider.destroy();
  });
});
