import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Abi } from 'viem';
import { devnetKey, SvcClient, toEthAddress } from '../../../sdk/index.js';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';

const artifact = (name: string) => contracts()[name] as unknown as { abi: Abi; bytecode: `0x${string}` };

describe("the node's contract ABI registry (svc_setContractAbi / svc_getContractAbi)", () => {
  let node: TestNode;
  let probe: string;
  beforeAll(async () => {
    node = await startTestNode({ validator: { blockTime: 100 } });
    const client = new SvcClient(node.url);
    const deployed = await client.deployContract(devnetKey('account', 0), artifact('Probe'));
    await client.waitForTransaction(deployed.txHash, { pollMs: 20 });
    probe = deployed.address;
  }, 30_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('keeps the functions, events and errors the code bears out, by either address form, and leaves out what it does not', async () => {
    const { abi } = artifact('Probe');
    // An event the contract never emits, claimed by whoever gives the ABI: left out.
    const forged = [
      ...abi,
      { type: 'event', name: 'Paid', anonymous: false, inputs: [{ name: 'to', type: 'address', indexed: true }] },
    ];
    const kept = await rpc<{ kept: number; dropped: number }>(node.url, 'svc_setContractAbi', [
      toEthAddress(probe as `svc1${string}`),
      forged,
    ]);
    expect(kept.body.error).toBeUndefined();
    const expected = abi.filter((item) => item.type === 'function' || item.type === 'error' || item.type === 'event');
    expect(kept.body.result).toEqual({
      address: probe,
      kept: expected.length,
      dropped: forged.length - expected.length,
    });
    const stored = (await rpc<Abi>(node.url, 'svc_getContractAbi', [probe])).body.result!;
    expect(stored.map((item) => `${item.type} ${'name' in item ? item.name : ''}`).sort()).toEqual(
      expected.map((item) => `${item.type} ${'name' in item ? item.name : ''}`).sort(),
    );
  });

  it('refuses an ABI none of whose entries is in the code, an account without code and a malformed ABI, and keeps what it had', async () => {
    const before = (await rpc<Abi>(node.url, 'svc_getContractAbi', [probe])).body.result;
    const wrong = await rpc(node.url, 'svc_setContractAbi', [
      probe,
      artifact('TimeLock').abi.filter((item) => item.type !== 'constructor'),
    ]);
    expect(wrong.body.error).toMatchObject({
      message: 'invalid_params',
      data: { reason: expect.stringMatching(/is in the code of svc1.*is it this contract's ABI\?/) },
    });
    const noCode = await rpc(node.url, 'svc_setContractAbi', [devnetKey('account', 3).address, artifact('Probe').abi]);
    expect(noCode.body.error).toMatchObject({ message: 'not_found' });
    expect((await rpc(node.url, 'svc_setContractAbi', [probe, 'not an array'])).body.error?.code).toBe(-32602);
    expect((await rpc(node.url, 'svc_setContractAbi', ['svc1nothex', artifact('Probe').abi])).body.error?.message).toBe(
      'invalid_address',
    );
    expect((await rpc<Abi>(node.url, 'svc_getContractAbi', [probe])).body.result).toEqual(before);
    expect((await rpc(node.url, 'svc_getContractAbi', [devnetKey('account', 3).address])).body.result).toBeNull();
  });
});
