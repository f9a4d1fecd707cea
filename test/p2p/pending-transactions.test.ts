import { afterEach, describe, expect, it } from 'vitest';
import {
  devnetKey,
  signTransaction,
  SvcClient,
  transferPayload,
  generateKeyPair,
  type KeyPair,
} from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { startTestNode, tempDir, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';

const running = new Set<TestNode>();
afterEach(async () => {
  for (const node of [...running].reverse()) await node.stop();
  running.clear();
});

async function start(config: Parameters<typeof startTestNode>[0]): Promise<TestNode> {
  const node = await startTestNode(config);
  running.add(node);
  return node;
}

const chain = (node: TestNode): Chain => node.node.service<Chain>('chain');
const p2pAddress = (node: TestNode): string => node.node.service<P2pService>('p2p').listenAddresses[0]!;
const nextBlock = (node: TestNode): Promise<void> =>
  new Promise((resolve) => {
    const off: () => void = node.node.events.on('chain:block', () => {
      off();
      resolve();
    });
  });

describe('pending transactions across a producer restart', () => {
  it('every transfer a follower acknowledged is mined, also those the validator held in its mempool when it stopped and those sent while it was down', async () => {
    const validatorDir = tempDir();
    // Long blocks, so the validator holds what it was sent in its mempool for a while.
    const validatorConfig = { dataDir: validatorDir, validator: { blockTime: 2000 } };
    let validator = await start(validatorConfig);
    const follower = await start({
      role: 'full',
      storage: 'memory',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [p2pAddress(validator)] },
    });
    await waitFor(() => syncStatus(follower).synced, Boolean, 10_000, 'the follower to sync');

    const senders: KeyPair[] = [devnetKey('account', 6), devnetKey('account', 7)];
    const nonces = new Map(senders.map((key) => [key.address, 0]));
    const to = generateKeyPair().address;
    const f = new SvcClient(follower.url);
    const acknowledged: string[] = [];
    const send = async (count: number): Promise<string[]> => {
      const hashes: string[] = [];
      for (let i = 0; i < count; i++) {
        const key = senders[i % senders.length]!;
        const nonce = nonces.get(key.address)!;
        const tx = signTransaction(
          { chainId: 'svc-devnet-1', kind: 'transfer', nonce, payload: transferPayload(to, 'OMC', 1n) },
          key,
        );
        hashes.push(await f.sendTransaction(tx));
        nonces.set(key.address, nonce + 1);
      }
      acknowledged.push(...hashes);
      return hashes;
    };

    // 1. Sent right after a block: the validator gets them by gossip and holds them, unmined, when it stops.
    await nextBlock(validator);
    const heldByValidator = await send(10);
    await waitFor(
      () => heldByValidator.every((hash) => chain(validator).mempool.has(hash)),
      Boolean,
      5_000,
      'the validator to hold the transfers',
    );
    await validator.stop();
    running.delete(validator);

    // 2. Sent while the validator is down.
    await send(10);

    // 3. The validator comes back on its data dir (with an empty mempool) and dials the follower.
    validator = await start({
      ...validatorConfig,
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [p2pAddress(follower)] },
    });
    expect(heldByValidator.some((hash) => chain(validator).mempool.has(hash))).toBe(false);

    // 4. Sent right after it is back.
    await send(10);

    const v = new SvcClient(validator.url);
    for (const hash of acknowledged) {
      const receipt = await v.waitForTransaction(hash, { pollMs: 50, timeoutMs: 30_000 });
      expect(receipt.status).toBe('success');
    }
    expect((await v.getBalance(to)).omc).toBe(30n);
  });
});
