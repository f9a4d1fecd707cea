import { failure } from '../helpers/rpc-failure.js';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPair, SvcClient, RpcError } from '../../sdk/index.js';
import { startTestNode, tempDir, type TestNode } from '../helpers/test-node.js';

let running: TestNode | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const nextBlock = (node: TestNode): Promise<unknown> =>
  new Promise((resolve) => {
    const off = node.node.events.on('chain:block', (event) => {
      off();
      resolve(event);
    });
  });

describe('faucet plugin', () => {
  it('funds at once, the balance shows the grant from the including block on, and the cooldown holds across a restart', async () => {
    const dataDir = tempDir();
    running = await startTestNode({ dataDir, validator: { blockTime: 1000 } });
    const client = new SvcClient(running.url);
    const address = generateKeyPair().address;
    await nextBlock(running);
    const grant = await client.faucetRequest(address);
    expect(grant).toMatchObject({
      omcMinted: '10',
      ogtMinted: '5',
      status: 'funded',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const immediately = await client.getBalance(address);
    const receipt = await client.waitForTransaction(grant.txHash, { pollMs: 50 });
    expect(receipt).toMatchObject({ status: 'success', kind: 'faucet.mint' });
    if (immediately.blockNumber < receipt.blockNumber) expect(immediately.omc).toBe(0n);
    expect((await client.getBalance(address, receipt.blockNumber - 1)).omc).toBe(0n);
    const after = await client.getBalance(address);
    expect(after).toMatchObject({
      omc: 10n * 10n ** 18n,
      ogt: 5n * 10n ** 18n,
      balanceOMC: '10.000000000000000000',
      balanceOGT: '5.000000000000000000',
    });

    const again = await client.faucetRequest(address).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(RpcError);
    expect(again).toMatchObject({
      code: -32010,
      message: 'cooldown_active',
      data: { retryAfterSeconds: expect.any(Number) },
    });
    expect((again as RpcError).data!.retryAfterSeconds).toBeGreaterThan(0);
    expect((again as RpcError).data!.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await client.faucetStatus(address)).toMatchObject({
      eligible: false,
      retryAfterSeconds: expect.any(Number),
    });

    await running.stop();
    running = await startTestNode({ dataDir, validator: { blockTime: 1000 } });
    const restarted = new SvcClient(running.url);
    await expect(restarted.faucetRequest(address)).rejects.toMatchObject({ message: 'cooldown_active' });
    expect((await restarted.getBalance(address)).balanceOMC).toBe('10.000000000000000000');
  });

  it('grants exactly once to 20 concurrent requests for one address', async () => {
    running = await startTestNode({ validator: { blockTime: 100 } });
    const client = new SvcClient(running.url);
    const address = generateKeyPair().address;
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.faucetRequest(address)));
    const funded = results.filter((r) => r.status === 'fulfilled');
    expect(funded).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ message: 'cooldown_active' });
    await client.waitForTransaction((funded[0] as PromiseFulfilledResult<{ txHash: string }>).value.txHash, {
      pollMs: 50,
    });
    expect((await client.getBalance(address)).balanceOMC).toBe('10.000000000000000000');
  });

  it('grants different addresses independently and follows a configured cooldown and grant', async () => {
    running = await startTestNode({
      validator: { blockTime: 100 },
      faucet: { cooldownSeconds: 0, omcGrant: '2.5', ogtGrant: '1' },
    });
    const client = new SvcClient(running.url);
    const address = generateKeyPair().address;
    const first = await client.faucetRequest(address);
    expect(first).toMatchObject({ omcMinted: '2.5', ogtMinted: '1' });
    const second = await client.faucetRequest(address);
    await client.waitForTransaction(first.txHash, { pollMs: 50 });
    await client.waitForTransaction(second.txHash, { pollMs: 50 });
    expect((await client.getBalance(address)).balanceOMC).toBe('5.000000000000000000');
  });

  it('refuses bad addresses and wrong parameter counts', async () => {
    running = await startTestNode({ storage: 'memory' });
    const call = async (params: unknown[]) =>
      new SvcClient(running!.url).rpcCall('faucet_request', params).catch((e: unknown) => e);
    for (const bad of [
      'svc1xyz',
      `svc1${'a'.repeat(39)}`,
      `SVC1${'a'.repeat(40)}`,
      `svc1${'g'.repeat(40)}`,
      42,
      null,
    ]) {
      expect(await call([bad]), JSON.stringify(bad)).toMatchObject({
        code: -32602,
        message: 'invalid_address',
        data: { field: 'address' },
      });
    }
    expect(await call([])).toMatchObject({ code: -32602, message: 'invalid_params' });
    expect(await call([`svc1${'a'.repeat(40)}`, 1])).toMatchObject({ code: -32602, message: 'invalid_params' });
    const mixedCase = await new SvcClient(running.url).rpcCall<{ status: string }>('faucet_request', [
      `svc1${'AbCdEf0123'.repeat(4)}`,
    ]);
    expect(mixedCase.status).toBe('funded');
  });

  it('refuses to load on a network other than devnet', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { devnetKey, toHex } = await import('../../sdk/index.js');
    const dir = tempDir();
    const genesis = join(dir, 'genesis.json');
    const v = devnetKey('validator', 0);
    writeFileSync(
      genesis,
      JSON.stringify({ chainId: 'svc-test-1', timestamp: 0, validatorKey: toHex(v.publicKey), validator: v.address }),
    );
    await expect(
      startTestNode({ storage: 'memory', role: 'full', network: 'testnet', genesis, plugins: ['faucet'] }),
    ).rejects.toThrow('faucet: only available on devnet, not on network "testnet"');
  });

  it('faucet_status accounts for the per-client limit as well as the address cooldown', async () => {
    running = await startTestNode({ storage: 'memory', faucet: { perIpLimit: 1 } });
    const client = new SvcClient(running.url);
    const [a, b] = [generateKeyPair().address, generateKeyPair().address];
    expect(await client.faucetStatus(b)).toMatchObject({
      eligible: true,
      waitingFor: null,
      retryAfterSeconds: 0,
      nextEligibleAt: null,
    });
    await client.faucetRequest(a);
    expect(await client.faucetStatus(a)).toMatchObject({ eligible: false, waitingFor: 'client_limit' });
    const status = await client.faucetStatus(b);
    expect(status).toMatchObject({ eligible: false, waitingFor: 'client_limit' });
    expect(status.retryAfterSeconds).toBeGreaterThan(3000);
    // What faucet_status says is what faucet_request does.
    expect(await failure(client.faucetRequest(b))).toMatchObject({ message: 'rate_limited' });
  });
});
