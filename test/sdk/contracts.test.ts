import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Abi } from 'viem';
import { startTestNode, type TestNode } from '../helpers/test-node.js';
import { contracts } from '../helpers/contracts.js';
import { devnetKey, RpcError, SvcClient, toEthAddress } from '../../sdk/index.js';

const token = () => contracts().Token as unknown as { abi: Abi; bytecode: `0x${string}` };

describe('SDK contracts: deployContract, callContract, readContract, getLogs (native envelope, ABI-aware)', () => {
  let node: TestNode;
  let api: SvcClient;
  let address: string;
  const owner = devnetKey('account', 1);
  const friend = devnetKey('account', 2);

  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 50 } });
    api = new SvcClient(node.url);
    const { abi, bytecode } = token();
    const deployed = await api.deployContract(owner, { abi, bytecode, args: [5_000n] });
    const receipt = await api.waitForTransaction(deployed.txHash, { pollMs: 20 });
    expect(receipt).toMatchObject({ status: 'success', kind: 'evm.create', contractAddress: deployed.address });
    address = deployed.address;
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('deploys at the address it predicts, with the constructor arguments encoded, and reads it back decoded', async () => {
    expect(await api.readContract({ address, abi: token().abi, functionName: 'totalSupply' })).toBe(5_000n);
    expect(
      await api.readContract({
        address: toEthAddress(address),
        abi: token().abi,
        functionName: 'balanceOf',
        args: [toEthAddress(owner.address)],
      }),
    ).toBe(5_000n);
    expect((await api.getCode(address)).length).toBeGreaterThan(100);
  });

  it('calls a function in a transaction; its receipt carries gas and the decoded-by-the-reader logs', async () => {
    const tx = await api.callContract(owner, {
      address,
      abi: token().abi,
      functionName: 'transfer',
      args: [toEthAddress(friend.address), 70n],
    });
    const receipt = await api.waitForTransaction(tx.hash, { pollMs: 20 });
    expect(receipt.status).toBe('success');
    expect(receipt.gasUsed).toBeGreaterThan(21_000);
    expect(receipt.logs).toHaveLength(1);
    expect(
      await api.readContract({
        address,
        abi: token().abi,
        functionName: 'balanceOf',
        args: [toEthAddress(friend.address)],
      }),
    ).toBe(70n);
    const logs = await api.getLogs({ address });
    expect(logs.map((log) => log.transactionHash)).toContain(tx.hash);
  });

  it('names a custom error of the ABI when a read or an estimate reverts', async () => {
    const overdraw = {
      address,
      abi: token().abi,
      functionName: 'transfer',
      args: [toEthAddress(owner.address), 10n ** 30n],
      from: friend.address,
    };
    const failure = await api.readContract(overdraw).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RpcError);
    expect((failure as RpcError).message).toBe('execution_reverted');
    expect((failure as RpcError).data).toMatchObject({
      reason: expect.stringMatching(/^InsufficientBalance\(/),
      error: { name: 'InsufficientBalance' },
    });
    await expect(api.callContract(friend, overdraw)).rejects.toMatchObject({
      message: 'execution_reverted',
      data: { error: { name: 'InsufficientBalance' } },
    });
  });

  it('refuses arguments that do not fit the ABI before sending anything', async () => {
    await expect(
      api.readContract({ address, abi: token().abi, functionName: 'balanceOf', args: ['not an address'] }),
    ).rejects.toMatchObject({ message: 'invalid_params', data: { field: 'args' } });
  });
});
