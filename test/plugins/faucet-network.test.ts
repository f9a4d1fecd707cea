import { afterEach, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, signTransaction, SvcClient, UNIT } from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { startTestNode, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';
import { failure } from '../helpers/rpc-failure.js';

const running: TestNode[] = [];
afterEach(async () => {
  for (const node of running.splice(0).reverse()) await node.stop();
});

async function start(config: Parameters<typeof startTestNode>[0]): Promise<TestNode> {
  const node = await startTestNode({ storage: 'memory', ...config });
  running.push(node);
  return node;
}

const chain = (node: TestNode): Chain => node.node.service<Chain>('chain');

describe('faucet cooldown across a two-node devnet', () => {
  it('an address granted through one node is refused by the other: by the chain rule while the grant is pending, by the node itself once it is mined', async () => {
    // Blocks slow enough that both grants are pending together and land in the same block.
    const validator = await start({ validator: { blockTime: 3000 } });
    const full = await start({
      role: 'full',
      p2p: {
        host: '127.0.0.1',
        port: 0,
        bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
      },
    });
    await waitFor(() => syncStatus(full).synced, Boolean, 10_000, 'the full node to sync');
    const [v, f] = [new SvcClient(validator.url), new SvcClient(full.url)];
    const address = generateKeyPair().address;

    // Right after a block, so both requests fall well inside the next block's interval.
    await new Promise<void>((resolve) => {
      const off: () => void = validator.node.events.on('chain:block', () => {
        off();
        resolve();
      });
    });
    const first = await v.faucetRequest(address);
    // The full node has seen the first grant (so its own mint takes the next faucet nonce) but not a block with it.
    await waitFor(
      () => chain(full).mempool.has(first.txHash),
      Boolean,
      10_000,
      'the first grant to reach the full node',
    );
    const second = await f.faucetRequest(address);
    expect(second.status).toBe('funded');

    const [one, two] = await Promise.all([
      v.waitForTransaction(first.txHash, { pollMs: 50 }),
      v.waitForTransaction(second.txHash, { pollMs: 50 }),
    ]);
    expect(one.status).toBe('success');
    expect(two).toMatchObject({ status: 'failed', error: { name: 'cooldown_active' } });
    const balance = await v.getBalance(address);
    expect([balance.omc, balance.ogt]).toEqual([10n * UNIT, 5n * UNIT]);

    // Once the grant is in a block the full node knows, it refuses at once, and faucet_status says so.
    await waitFor(
      () => f.getBalance(address),
      (b) => b.omc === 10n * UNIT,
      10_000,
      'the full node to see the grant',
    );
    expect(await failure(f.faucetRequest(address))).toMatchObject({
      message: 'cooldown_active',
      data: { retryAfterSeconds: expect.any(Number) },
    });
    expect(await f.faucetStatus(address)).toMatchObject({ eligible: false, waitingFor: 'cooldown' });
  });

  it("a grant whose mint lost its nonce to another node's mint is signed again and lands", async () => {
    const validator = await start({ validator: { blockTime: 1000 } });
    const full = await start({
      role: 'full',
      p2p: {
        host: '127.0.0.1',
        port: 0,
        bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
      },
    });
    await waitFor(() => syncStatus(full).synced, Boolean, 10_000, 'the full node to sync');
    await new Promise<void>((resolve) => {
      const off: () => void = validator.node.events.on('chain:block', () => {
        off();
        resolve();
      });
    });
    // Another node's mint that the full node has not heard of: the test puts it straight into the
    // validator's mempool (the devnet faucet key is public), so both take the same faucet nonce.
    const faucetKey = devnetKey('faucet', 0);
    const nonce = chain(validator).mempool.nextNonce(faucetKey.address);
    const other = generateKeyPair().address;
    chain(validator).mempool.add(
      signTransaction(
        { chainId: 'svc-devnet-1', kind: 'faucet.mint', nonce, payload: { to: other, omc: '1', ogt: '1' } },
        faucetKey,
      ),
    );
    const address = generateKeyPair().address;
    const grant = await new SvcClient(full.url).faucetRequest(address);
    expect(chain(full).mempool.get(grant.txHash)?.nonce).toBe(nonce);

    const v = new SvcClient(validator.url);
    await waitFor(
      () => v.getBalance(address),
      (b) => b.omc === 10n * UNIT,
      15_000,
      'the grant to land after all',
    );
    expect((await v.getBalance(other)).omc).toBe(1n);
    const resigned = full.logs.lines.find(
      (line) => line.msg === "faucet grant signed again: another node's mint took its nonce",
    );
    expect(resigned).toMatchObject({ to: address, dropped: grant.txHash });
  });
  it('a grant acknowledged by a node cut off from the validator lands after the cut, though the blocks it catches up on take its nonce again and again', async () => {
    const validator = await start({ validator: { blockTime: 300 } });
    const full = await start({
      role: 'full',
      p2p: {
        host: '127.0.0.1',
        port: 0,
        bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
      },
    });
    await waitFor(() => syncStatus(full).synced, Boolean, 10_000, 'the full node to sync');
    const p2p = (node: TestNode): P2pService => node.node.service<P2pService>('p2p');
    p2p(full).denyPeers([p2p(validator).peerId]);
    await waitFor(
      () => p2p(full).peerList().length,
      (n) => n === 0,
      10_000,
      'the cut',
    );
    const address = generateKeyPair().address;
    const grant = await new SvcClient(full.url).faucetRequest(address);
    // Meanwhile the validator's own faucet mints in five blocks one after another, each taking the
    // nonce the full node's mint has — and then the one it would sign again with.
    const v = new SvcClient(validator.url);
    for (let i = 0; i < 5; i++)
      await v.waitForTransaction((await v.faucetRequest(generateKeyPair().address)).txHash, { pollMs: 50 });
    p2p(full).denyPeers([]);
    await waitFor(
      () => v.getBalance(address).then((b) => b.balanceOMC),
      (omc) => omc === '10.000000000000000000',
      20_000,
      'the grant to land after all',
    );
    const again = full.logs.lines.filter(
      (line) => line.msg === "faucet grant signed again: another node's mint took its nonce" && line.to === address,
    );
    expect(again.length).toBeGreaterThanOrEqual(1);
    expect(again[0]).toMatchObject({ dropped: grant.txHash });
    expect(full.logs.lines.some((line) => String(line.msg).startsWith('faucet grant dropped'))).toBe(false);
  });
});
