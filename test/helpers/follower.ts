import { expect } from 'vitest';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { SvcClient } from '../../sdk/index.js';
import { startTestNode, waitFor, type TestNode } from './test-node.js';
import type { RawConfig } from '../../kernel/config/load.js';

/**
 * Starts a full node from genesis that follows `source` over libp2p, waits until it has the source's
 * head, and checks that block's hash and state root are the source's: every block re-executed to the
 * same state, each imported only with a certificate it checked (and it holds one for every block).
 * Stops it after.
 */
export async function expectFollowerAgrees(source: TestNode, config: RawConfig = {}): Promise<void> {
  const follower = await startTestNode({
    ...config,
    role: 'full',
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [source.node.service<P2pService>('p2p').listenAddresses[0]!] },
  });
  try {
    const height = source.node.service<Chain>('chain').head.height;
    await waitFor(
      () => follower.node.service<Chain>('chain').head.height,
      (h) => h >= height,
      30_000,
      'the follower to reach the source',
    ).catch((error: unknown) => {
      // What the follower said about it: the reason it stopped is in its warnings.
      const said = follower.logs.lines
        .filter((line) => Number(line.level) >= 40)
        .slice(-10)
        .map((line) => JSON.stringify(line));
      throw new Error(`${(error as Error).message}\n${said.join('\n')}`);
    });
    const [mine, theirs] = await Promise.all([
      new SvcClient(follower.url).getBlockByNumber(height),
      new SvcClient(source.url).getBlockByNumber(height),
    ]);
    expect(mine.stateRoot).toBe(theirs.stateRoot);
    expect(mine.hash).toBe(theirs.hash);
    const chain = follower.node.service<Chain>('chain');
    for (let h = 1; h <= height; h++)
      expect((await chain.getCommit(h))?.blockHash, `certificate of block ${h}`).toBe((await chain.getBlock(h))!.hash);
  } finally {
    await follower.stop();
  }
}
