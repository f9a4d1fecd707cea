import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  concatHex,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  defineChain,
  encodeFunctionData,
  getContractAddress,
  http,
  keccak256,
  parseSignature,
  type Abi,
  type Chain,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { rpc, startTestNode, waitFor, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';
import { TEST_ADDRESS_1, TEST_KEY_0 } from '../../helpers/foundry.js';
import { devnetKey } from '../../../sdk/keys.js';
import { signTransaction, rawTransaction } from '../../../sdk/transaction.js';
import { transferPayload } from '../../../sdk/transaction.js';

const CHAIN_ID = 0x737663;
const artifact = (name: string) => contracts()[name] as unknown as { abi: Abi; bytecode: Hex };

describe('contracts that matter, on chain', () => {
  let node: TestNode;
  let chain: Chain;
  const owner = privateKeyToAccount(TEST_KEY_0);

  const clients = () => ({
    publicClient: createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 }),
    wallet: createWalletClient({ chain, transport: http(node.url), account: owner }),
  });
  const deploy = async (name: string, args: unknown[] = []) => {
    const { publicClient, wallet } = clients();
    const { abi, bytecode } = artifact(name);
    const receipt = await publicClient.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi, bytecode, args }),
    });
    expect(receipt.status).toBe('success');
    return receipt.contractAddress!;
  };
  const write = async (address: Address, name: string, functionName: string, args: unknown[] = [], value?: bigint) => {
    const { publicClient, wallet } = clients();
    const hash = await wallet.writeContract({
      address,
      abi: artifact(name).abi,
      functionName,
      args,
      ...(value ? { value } : {}),
    });
    return publicClient.waitForTransactionReceipt({ hash });
  };

  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 100 } });
    chain = defineChain({
      id: CHAIN_ID,
      name: 'svc',
      nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("an ERC-20 permit (EIP-2612: EIP-712 signature, ecrecover, the chain id) lets a spender move the owner's tokens", async () => {
    const token = await deploy('Token', [1_000_000n]);
    const { publicClient } = clients();
    const spender = privateKeyToAccount(generatePrivateKey());
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const signature = await owner.signTypedData({
      domain: { name: 'Token', version: '1', chainId: CHAIN_ID, verifyingContract: token },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: owner.address, spender: spender.address, value: 500n, nonce: 0n, deadline },
    });
    const { r, s, v } = parseSignature(signature);
    expect(
      (await write(token, 'Token', 'permit', [owner.address, spender.address, 500n, deadline, Number(v), r, s])).status,
    ).toBe('success');
    expect(
      await publicClient.readContract({
        address: token,
        abi: artifact('Token').abi,
        functionName: 'allowance',
        args: [owner.address, spender.address],
      }),
    ).toBe(500n);
    expect(
      await publicClient.readContract({
        address: token,
        abi: artifact('Token').abi,
        functionName: 'nonces',
        args: [owner.address],
      }),
    ).toBe(1n);
  });

  it('a CREATE2 factory deploys at the address predicted off-chain', async () => {
    const factory = await deploy('Factory');
    const salt = keccak256('0x5356');
    const { bytecode } = artifact('Probe');
    const predicted = getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode });
    const receipt = await write(factory, 'Factory', 'deploy', [salt, bytecode]);
    const event = decodeEventLog({
      abi: artifact('Factory').abi,
      data: receipt.logs[0]!.data,
      topics: receipt.logs[0]!.topics,
    });
    expect((event.args as unknown as { at: string }).at.toLowerCase()).toBe(predicted.toLowerCase());
    expect((await clients().publicClient.getCode({ address: predicted }))?.length).toBeGreaterThan(2);
  });

  it('a payable contract forwards the OMC it receives, and svc_getBalance shows what the EVM moved', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const forwarder = await deploy('Forwarder', [recipient]);
    const { publicClient, wallet } = clients();
    const receipt = await publicClient.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: forwarder, value: 3n * 10n ** 18n }),
    });
    expect(receipt.status).toBe('success');
    const svc = (await rpc<{ omc: string }>(node.url, 'svc_getBalance', [`svc1${recipient.slice(2).toLowerCase()}`]))
      .body.result!;
    expect(svc.omc).toBe((3n * 10n ** 18n).toString());
    expect(await publicClient.getBalance({ address: forwarder })).toBe(0n);
  });

  it('a contract that emits many indexed events: every log in the receipt and in eth_getLogs, in order', async () => {
    const probe = await deploy('Probe');
    const receipt = await write(probe, 'Probe', 'count', [40n]);
    expect(receipt.logs).toHaveLength(40);
    expect(receipt.logs.map((log) => Number(log.logIndex))).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const logs = await clients().publicClient.getLogs({
      address: probe,
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    });
    expect(logs.map((log) => BigInt(log.topics[2]!))).toEqual(Array.from({ length: 40 }, (_, i) => BigInt(i + 1)));
  });

  it('one account space: svc1 and 0x name one account; OMC, nonces and calls agree on both sides', async () => {
    const { publicClient, wallet } = clients();
    const dev = devnetKey('account', 3);
    const dev0x = `0x${dev.address.slice(4)}` as Address;
    const stranger = privateKeyToAccount(generatePrivateKey());
    // OMC sent natively to svc1<hex> is the 0x account's balance, and the reverse.
    const nonce = (await rpc<number>(node.url, 'svc_getNonce', [dev.address])).body.result!;
    const transfer = signTransaction(
      {
        chainId: 'svc-devnet-1',
        kind: 'transfer',
        nonce,
        payload: transferPayload(`svc1${stranger.address.slice(2)}`, 'OMC', 7n),
      },
      dev,
    );
    await rpc(node.url, 'svc_sendRawTransaction', [rawTransaction(transfer)]);
    await waitFor(
      () => publicClient.getBalance({ address: stranger.address }),
      (b) => b === 7n,
      10_000,
      'the native transfer',
    );
    const before = BigInt((await rpc<{ omc: string }>(node.url, 'svc_getBalance', [dev.address])).body.result!.omc);
    const paid = await wallet.sendTransaction({ to: dev0x, value: 11n });
    await publicClient.waitForTransactionReceipt({ hash: paid });
    expect(BigInt((await rpc<{ omc: string }>(node.url, 'svc_getBalance', [dev.address])).body.result!.omc)).toBe(
      before + 11n,
    );
    // The account's transaction list names the Ethereum transfer that paid it (its `to` is a 0x name).
    const listed = (
      await rpc<{ transactions: { hash: string }[] }>(node.url, 'svc_listTransactions', [{ address: dev.address }])
    ).body.result!;
    expect(listed.transactions.map((t) => t.hash)).toContain(paid);
    // One nonce, whichever method asks.
    expect(Number(await publicClient.getTransactionCount({ address: dev0x }))).toBe(
      (await rpc<number>(node.url, 'svc_getNonce', [dev.address])).body.result,
    );
    expect(Number(await publicClient.getTransactionCount({ address: owner.address, blockTag: 'pending' }))).toBe(
      (await rpc<number>(node.url, 'svc_getNonce', [`svc1${owner.address.slice(2).toLowerCase()}`])).body.result,
    );
  });

  it("a native evm.call and an Ethereum transaction to one contract in one block run in block order and see each other's writes", async () => {
    // A node of its own with 1.5 s blocks: both are sent right after a block, well inside the next.
    const slow = await startTestNode({ validator: { blockTime: 1500 } });
    try {
      const slowChain = defineChain({
        id: CHAIN_ID,
        name: 'svc',
        nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
        rpcUrls: { default: { http: [slow.url] } },
      });
      const publicClient = createPublicClient({ chain: slowChain, transport: http(slow.url), pollingInterval: 50 });
      const wallet = createWalletClient({ chain: slowChain, transport: http(slow.url), account: owner });
      const { abi, bytecode } = artifact('Probe');
      const probe = (
        await publicClient.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi, bytecode }) })
      ).contractAddress!;
      const dev = devnetKey('account', 4);
      const data = encodeFunctionData({ abi, functionName: 'count', args: [1n] });
      const native = signTransaction(
        {
          chainId: 'svc-devnet-1',
          kind: 'evm.call',
          nonce: 0,
          payload: { to: probe, data, value: '0', gasLimit: 200_000 },
        },
        dev,
      );
      const signed = await wallet.signTransaction({
        to: probe,
        data,
        gas: 200_000n,
        nonce: await publicClient.getTransactionCount({ address: owner.address, blockTag: 'pending' }),
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 0n,
      });
      const head = await publicClient.getBlockNumber();
      await waitFor(
        () => publicClient.getBlockNumber(),
        (n) => n > head,
        10_000,
        'a new block',
      );
      const [nativeHash, ethHash] = await Promise.all([
        rpc<string>(slow.url, 'svc_sendRawTransaction', [rawTransaction(native)]).then((r) => r.body.result!),
        publicClient.sendRawTransaction({ serializedTransaction: signed }),
      ]);
      const ethReceipt = await publicClient.waitForTransactionReceipt({ hash: ethHash });
      const nativeReceipt = (
        await waitFor(
          () =>
            rpc<{ blockNumber: number; index: number; status: string; logs: { topics: string[] }[] }>(
              slow.url,
              'svc_getTransactionReceipt',
              [nativeHash],
            ),
          (r) => Boolean(r.body.result),
          10_000,
          'the native call',
        )
      ).body.result!;
      expect(nativeReceipt.status).toBe('success');
      expect(nativeReceipt.blockNumber).toBe(Number(ethReceipt.blockNumber));
      // Each counted once on top of what the one before it in the block left.
      const ethIndex = (await rpc<{ index: number }>(slow.url, 'svc_getTransactionReceipt', [ethHash])).body.result!
        .index;
      const [first, second] =
        ethIndex < nativeReceipt.index
          ? [ethReceipt.logs[0]!.topics[2]!, nativeReceipt.logs[0]!.topics[2]!]
          : [nativeReceipt.logs[0]!.topics[2]!, ethReceipt.logs[0]!.topics[2]!];
      expect([BigInt(first), BigInt(second)]).toEqual([1n, 2n]);
      expect(await publicClient.readContract({ address: probe, abi, functionName: 'counter' })).toBe(2n);
      // The native call's log is in svc_getLogs; eth_getLogs shows the Ethereum transaction's only.
      expect((await rpc<unknown[]>(slow.url, 'svc_getLogs', [{ address: probe }])).body.result!).toHaveLength(2);
      expect(await publicClient.getLogs({ address: probe, fromBlock: 0n })).toHaveLength(1);
    } finally {
      await slow.stop();
    }
  });

  it('svc_call and eth_call give the same bytes', async () => {
    const token = await deploy('Token', [77n]);
    const data = encodeFunctionData({ abi: artifact('Token').abi, functionName: 'balanceOf', args: [owner.address] });
    const eth = (await rpc<string>(node.url, 'eth_call', [{ to: token, data }, 'latest'])).body.result!;
    const svc = (
      await rpc<{ output: string }>(node.url, 'svc_call', [{ to: `svc1${token.slice(2).toLowerCase()}`, data }])
    ).body.result!;
    expect(svc.output).toBe(eth);
    expect(BigInt(eth)).toBe(77n);
    const reverted = (
      await rpc(node.url, 'svc_call', [
        {
          to: token,
          data: concatHex([
            encodeFunctionData({
              abi: artifact('Token').abi,
              functionName: 'transfer',
              args: [TEST_ADDRESS_1, 10n ** 30n],
            }),
          ]),
        },
      ])
    ).body.error;
    expect(reverted).toMatchObject({ code: -32080, message: 'execution_reverted' });
    expect((reverted!.data as { revert: string }).revert).toMatch(/^0x/);
  });
});
