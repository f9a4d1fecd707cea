import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { peerOf, said, snapshotStoreOf } from './peering.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { Chain } from '../../../chain/chain.js';
import { devnetKey, generateKeyPair, SvcClient, toHex, UNIT } from '../../../sdk/index.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';

const nodes: TestNode[] = [];
async function start(config: Parameters<typeof startTestNode>[0]): Promise<TestNode> {
  const node = await startTestNode(config);
  nodes.push(node);
  return node;
}
afterAll(async () => {
  for (const node of nodes.reverse()) await node.stop();
});
const headOf = (node: TestNode): number => node.node.service<Chain>('chain').head.height;

describe('a validator that joined by state sync', () => {
  it('stakes, enters the set at the next epoch, and signs the blocks the chain cannot make without it', async () => {
    // The devnet's lone validator (power 20) and a follower that takes snapshots every 20 blocks.
    const validator = await start({ validator: { blockTime: 100 }, snapshots: { interval: 0 } });
    const keeper = await start({ role: 'full', p2p: peerOf([validator]), snapshots: { interval: 20, keep: 4 } });
    const store = snapshotStoreOf(keeper);
    await waitFor(
      async () => (await store.heights()).at(-1) ?? 0,
      (h) => h >= 20,
      30_000,
      'a snapshot at 20',
    );
    const client = new SvcClient(validator.url);
    const trusted = await client.getBlockByNumber(20);
    // A new operator, funded, with a node of its own that restores the keeper's snapshot.
    const key = generateKeyPair();
    const keyFile = join(tempDir(), 'validator.key');
    writeFileSync(keyFile, toHex(key.secretKey), { mode: 0o600 });
    for (const token of ['OGT', 'OMC'] as const) {
      const sent = await client.transfer(devnetKey('account', 4), key.address, token, 25n * UNIT);
      await client.waitForTransaction(sent.hash, { pollMs: 20 });
    }
    const joiner = await start({
      validator: { keyFile, blockTime: 100 },
      p2p: peerOf([keeper, validator]),
      snapshots: { stateSync: true, trustHeight: 20, trustHash: trusted.hash },
    });
    await waitFor(() => said(joiner, 'state sync: done at block'), Boolean, 30_000, 'the state sync');
    expect(joiner.node.service<Chain>('chain').baseHeight).toBeGreaterThanOrEqual(20);
    await waitFor(
      () => headOf(joiner),
      (h) => h >= headOf(validator),
      20_000,
      'the joiner to follow',
    );
    // Its stake equals the genesis validator's power: from its epoch on, no block has more than 2/3
    // of the power without its signature.
    const staked = await client.createValidator(key, { stake: 20n * UNIT, moniker: 'state-synced' });
    expect((await client.waitForTransaction(staked.hash, { pollMs: 20 })).status).toBe('success');
    const set = await waitFor(
      () => client.validators(),
      (s) => s.validators.some((v) => v.operator === key.address),
      30_000,
      'the joiner in the set',
    );
    const from = set.height + 1;
    await waitFor(
      () => client.blockNumber(),
      (h) => h >= from + 6,
      30_000,
      'blocks made by the two',
    );
    for (let height = from + 2; height <= from + 6; height++) {
      const commit = await client.getCommit(height);
      expect(commit.signatures).toHaveLength(2);
    }
    const theirs = await client.getBlockByNumber(from + 6);
    expect((await new SvcClient(joiner.url).getBlockByNumber(from + 6)).stateRoot).toBe(theirs.stateRoot);
  }, 120_000);
});
