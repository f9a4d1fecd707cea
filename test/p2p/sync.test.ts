import { writeFileSync } from 'node:fs';
import { freePort } from '../helpers/ports.js';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { devnetKey, rawTransaction, signTransaction, SvcClient, transferPayload, UNIT } from '../../sdk/index.js';
import { toHex } from '../../sdk/bytes.js';
import { loadOrCreateNodeKeys } from '../../keys/node-keys.js';
import type { P2pService } from '../../p2p/service.js';
// The p2p plugin's events (`p2p:imported`) are typed where its module is in the program.
import type {} from '../../p2p/plugin.js';
import type { Chain } from '../../chain/chain.js';
import { startTestNode, tempDir, syncStatus, waitFor, type TestNode } from '../helpers/test-node.js';

const running: TestNode[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()));
});

async function start(config: Parameters<typeof startTestNode>[0] = {}): Promise<TestNode> {
  const node = await startTestNode(config);
  running.push(node);
  return node;
}

const p2p = (node: TestNode): P2pService => node.node.service<P2pService>('p2p');
const chain = (node: TestNode): Chain => node.node.service<Chain>('chain');
const address = (node: TestNode): string => p2p(node).listenAddresses[0]!;

function follower(validator: TestNode, extra: Parameters<typeof startTestNode>[0] = {}): Promise<TestNode> {
  return start({
    role: 'compute',
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [address(validator)] },
    ...extra,
  });
}

describe('peer-to-peer sync', () => {
  it('a compute node bootstrapped from a validator reaches its height within seconds and stays within 2 blocks', async () => {
    // 250 ms blocks: 2 blocks of slack is half a second, what a busy 2-core machine can take to import one (it fell 3 behind at 100 ms).
    const validator = await start({ validator: { blockTime: 250 } });
    await waitFor(
      () => chain(validator).head.height,
      (h) => h >= 10,
    );
    expect(address(validator)).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/12D3Koo/);
    const compute = await follower(validator);
    await waitFor(
      () => chain(compute).head.height,
      (h) => h >= chain(validator).head.height - 2,
      10_000,
      'compute node to catch up',
    );
    // Following the head: sampled at each of the validator's next 10 blocks.
    const target = chain(validator).head.height + 10;
    await new Promise<void>((resolve, reject) => {
      const off = validator.node.events.on('chain:block', (block) => {
        const gap = block.height - chain(compute).head.height;
        if (gap > 2) {
          off();
          reject(new Error(`compute node fell ${gap} blocks behind at ${block.height}`));
        } else if (block.height >= target) {
          off();
          resolve();
        }
      });
    });
    // No line a block at info (the chain's summary says them every few seconds), one at debug.
    expect(compute.logs.lines.some((l) => l.level === 30 && /^imported block/.test(String(l.msg)))).toBe(false);
    const client = new SvcClient(compute.url);
    expect(await client.rpcCall('svc_syncing')).toBe(false);
    const peers = await client.rpcCall<{ peerId: string }[]>('svc_peers');
    expect(peers.map((p) => p.peerId)).toEqual([validator.node.keys.peerId]);
    expect(await client.rpcCall('svc_nodeInfo')).toMatchObject({
      peerId: compute.node.keys.peerId,
      listenAddresses: [address(compute)],
      synced: true,
    });
    // The compute node never produced a block: every block it holds is the validator's.
    const block = await client.getBlockByNumber(5);
    expect(block.hash).toBe((await new SvcClient(validator.url).getBlockByNumber(5)).hash);
  });

  it('a node started after 200 blocks syncs them all, computes the same state root, and a transaction sent to it is mined', async () => {
    // 200 blocks made fast, then the validator goes on at a pace a follower on a busy machine keeps up with.
    const dataDir = tempDir();
    const fast = await start({ dataDir, validator: { blockTime: 10 } });
    const fastClient = new SvcClient(fast.url);
    // Some state to agree on: transfers along the way.
    const alice = devnetKey('account', 3);
    const bob = devnetKey('account', 4);
    for (let i = 0; i < 5; i++) await fastClient.transfer(alice, bob.address, 'OMC', BigInt(i + 1) * UNIT);
    await waitFor(
      () => chain(fast).head.height,
      (h) => h >= 200,
      20_000,
    );
    running.splice(running.indexOf(fast), 1);
    await fast.stop();
    const validator = await start({ dataDir, validator: { blockTime: 200 } });
    const vClient = new SvcClient(validator.url);
    const full = await follower(validator, { role: 'full' });
    await waitFor(
      () => chain(full).head.height,
      (h) => h >= 200,
      20_000,
      'full node to sync 200 blocks',
    );
    const [ours, theirs] = await Promise.all([
      new SvcClient(full.url).getBlockByNumber(200),
      vClient.getBlockByNumber(200),
    ]);
    expect(ours.stateRoot).toBe(theirs.stateRoot);
    expect(ours.hash).toBe(theirs.hash);
    await waitFor(
      () => full.logs.lines.some((line) => line.msg === 'caught up with peers'),
      Boolean,
      10_000,
      'the sync run to end',
    );

    const fClient = new SvcClient(full.url);
    const sent = await fClient.transfer(bob, alice.address, 'OGT', 7n);
    const receipt = await vClient.waitForTransaction(sent.hash, { pollMs: 20, timeoutMs: 10_000 });
    expect(receipt.status).toBe('success');
    // And the follower sees its own transaction mined, through the blocks it imports.
    expect((await fClient.waitForTransaction(sent.hash, { pollMs: 20, timeoutMs: 10_000 })).blockHash).toBe(
      receipt.blockHash,
    );
  });

  it('a faucet grant on a full node reaches the validator by gossip and is mined; metrics count peers, imports and gossip', async () => {
    const validator = await start({ validator: { blockTime: 50 } });
    const full = await follower(validator, { role: 'full' });
    await waitFor(() => syncStatus(full).synced, Boolean, 10_000);
    const recipient = devnetKey('account', 7).address.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    const fClient = new SvcClient(full.url);
    const grant = await fClient.faucetRequest(recipient);
    const receipt = await new SvcClient(validator.url).waitForTransaction(grant.txHash, {
      pollMs: 20,
      timeoutMs: 10_000,
    });
    expect(receipt.status).toBe('success');
    await waitFor(
      () => fClient.getBalance(recipient),
      (b) => b.omc === 10n * UNIT,
      10_000,
      'the grant to show on the full node',
    );
    const metrics = await (await fetch(`${full.url}/metrics`)).text();
    expect(metrics).toMatch(/^svc_p2p_peers 1$/m);
    expect(metrics).toMatch(/^svc_p2p_blocks_imported_total\{source="(sync|gossip)"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^svc_p2p_gossip_messages_total\{direction="out"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^svc_p2p_gossip_messages_total\{direction="in"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^svc_sync_highest_block [1-9]\d*$/m);
  });

  // Signing and sending 2,400 transactions and a 3 s block on a busy machine can outlast the default 30 s.
  it('a block too big to gossip whole is announced by its header, and followers fetch it by range', async () => {
    // Long enough blocks that every transfer, submitted right after one, lands in the next.
    const validator = await start({ validator: { blockTime: 3000 } });
    const full = await follower(validator, { role: 'full' });
    await waitFor(() => syncStatus(full).synced, Boolean, 10_000);
    // ~2,400 transfers of ~215 bytes: past the ~900 KiB a gossiped block may carry.
    const keys = Array.from({ length: 10 }, (_, i) => devnetKey('account', i));
    const raws = Array.from({ length: 2400 }, (_, i) =>
      rawTransaction(
        signTransaction(
          {
            chainId: 'svc-devnet-1',
            kind: 'transfer',
            nonce: Math.floor(i / 10),
            payload: transferPayload(keys[(i + 1) % 10]!.address, 'OMC', 1n),
          },
          keys[i % 10]!,
        ),
      ),
    );
    const imported: { height: number; source: string }[] = [];
    full.node.events.on('p2p:imported', (event) => void imported.push(event));
    const v = new SvcClient(validator.url);
    // Every sender's later nonces first: none can be mined before its nonce 0 arrives, however long
    // sending them takes on a busy machine; then the ten nonce-0 transfers right after a block, so the
    // next block holds all 2,400.
    const [firsts, rest] = [raws.slice(0, 10), raws.slice(10)];
    for (let i = 0; i < rest.length; i += 100)
      await v.batch(rest.slice(i, i + 100).map((raw) => ({ method: 'svc_sendRawTransaction', params: [raw] })));
    await waitFor(
      () => chain(validator).mempool.size,
      (n) => n === rest.length,
      15_000,
      'the validator to hold the later nonces',
    );
    const big = new Promise<number>((resolve) => {
      const off: () => void = validator.node.events.on('chain:block', (block) => {
        if (block.transactions < 2400) return;
        off();
        resolve(block.height);
      });
    });
    await new Promise<void>((resolve) => {
      const off: () => void = validator.node.events.on('chain:block', () => {
        off();
        resolve();
      });
    });
    await v.batch(firsts.map((raw) => ({ method: 'svc_sendRawTransaction', params: [raw] })));
    const height = await big;
    await waitFor(
      () => chain(full).head.height,
      (h) => h >= height,
      15_000,
      'the follower to get the big block',
    );
    expect(imported.find((event) => event.height === height)?.source).toBe('sync');
    expect((await chain(full).getBlock(height))!.stateRoot).toBe((await chain(validator).getBlock(height))!.stateRoot);
  }, 120_000);

  it('a follower restarted from its data dir resumes from where it was', async () => {
    const validator = await start({ validator: { blockTime: 50 } });
    await waitFor(
      () => chain(validator).head.height,
      (h) => h >= 20,
    );
    const dataDir = tempDir();
    const first = await follower(validator, { role: 'full', dataDir });
    await waitFor(
      () => chain(first).head.height,
      (h) => h >= 20,
      10_000,
    );
    const { peerId } = first.node.keys;
    running.splice(running.indexOf(first), 1);
    await first.stop();
    const stoppedAt = await startTestNode({ role: 'full', dataDir, storage: 'rocksdb' }).then(async (peek) => {
      const height = chain(peek).head.height;
      await peek.stop();
      return height;
    });
    expect(stoppedAt).toBeGreaterThanOrEqual(20);
    const again = await follower(validator, { role: 'full', dataDir });
    expect(again.node.keys.peerId).toBe(peerId);
    expect(chain(again).head.height).toBeGreaterThanOrEqual(stoppedAt);
    await waitFor(
      () => chain(again).head.height,
      (h) => h >= chain(validator).head.height - 2,
      10_000,
      'restarted follower to catch up',
    );
  });

  it('refuses a peer on another genesis, and neither side syncs from the other', async () => {
    const validator = await start({ validator: { blockTime: 50 } });
    const dir = tempDir();
    const genesis = join(dir, 'genesis.json');
    const v = devnetKey('validator', 0);
    writeFileSync(
      genesis,
      JSON.stringify({
        chainId: 'svc-devnet-1',
        timestamp: 1_000,
        validatorKey: toHex(v.publicKey),
        validator: v.address,
        accounts: [],
      }),
    );
    const stranger = await start({
      network: 'othernet',
      genesis,
      role: 'full',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [address(validator)] },
    });
    await waitFor(
      () => stranger.logs.lines.find((line) => String(line.msg).startsWith('refusing peer')),
      (line) => line !== undefined,
      10_000,
    );
    const refusal = stranger.logs.lines.find((line) => String(line.msg).startsWith('refusing peer'))!;
    expect(String(refusal.reason)).toContain('genesis');
    await waitFor(
      () => p2p(validator).peerList().length,
      (n) => n === 0,
      10_000,
      'validator to drop the stranger',
    );
    expect(chain(stranger).head.height).toBe(0);
    expect(await new SvcClient(stranger.url).rpcCall('svc_syncing')).toMatchObject({ currentBlock: 0 });
  });

  it('/health is 503 syncing until the bootstrap peer (started later) is reached and caught up, then 200', async () => {
    const validatorDir = tempDir();
    const { peerId } = await loadOrCreateNodeKeys(validatorDir);
    const port = await freePort();
    const full = await start({
      role: 'full',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [`/ip4/127.0.0.1/tcp/${port}/p2p/${peerId}`] },
    });
    const health = async (): Promise<{ status: number; text: string }> => {
      const response = await fetch(`${full.url}/health`);
      return { status: response.status, text: await response.text() };
    };
    expect(await health()).toEqual({ status: 503, text: 'syncing' });
    const verbose = await (await fetch(`${full.url}/health?verbose`)).json();
    expect(verbose).toMatchObject({ status: 'syncing', role: 'full', head: 0, peers: 0, bestPeerHead: null });
    await waitFor(
      () => full.logs.lines.some((line) => line.msg === 'bootstrap peer not reachable yet'),
      Boolean,
      10_000,
    );

    const validator = await start({
      dataDir: validatorDir,
      validator: { blockTime: 50 },
      p2p: { host: '127.0.0.1', port },
    });
    await waitFor(health, (h) => h.status === 200, 15_000, 'follower to become healthy');
    expect((await health()).text).toBe('healthy');
    await waitFor(
      () => chain(full).head.height,
      (h) => h >= 5,
      15_000,
      'the follower at height 5',
    );
    const detail = (await (await fetch(`${full.url}/health?verbose`)).json()) as Record<string, unknown>;
    expect(detail).toMatchObject({ status: 'healthy', role: 'full', peers: 1, synced: true });
    // Healthy was reached by being within 2 blocks; a moment later it may lag a block or two more while
    // imports catch up (50 ms blocks on a busy machine), which the 2 s grace absorbs: no flap to syncing.
    // So the head it reports is the one it imported from the validator, not how far behind it is.
    expect(detail.head as number).toBeGreaterThanOrEqual(5);
    expect(detail.head as number).toBeLessThanOrEqual(chain(validator).head.height);
    await validator.stop();
    running.splice(running.indexOf(validator), 1);
  });
  it('a denied peer is cut off both ways until the list is lifted: no connection, no blocks; then it reconnects and catches up', async () => {
    const validator = await start({ validator: { blockTime: 100 } });
    const compute = await follower(validator);
    await waitFor(
      () => chain(compute).head.height,
      (h) => h >= chain(validator).head.height - 2 && h > 0,
      10_000,
      'the follower to sync',
    );
    const validatorId = p2p(validator).peerId;
    p2p(compute).denyPeers([validatorId]);
    await waitFor(
      () => p2p(validator).peerList().length + p2p(compute).peerList().length,
      (n) => n === 0,
      10_000,
      'the link to close',
    );
    const cutAt = chain(compute).head.height;
    // The validator goes on; the denied link stays down (its bootstrap loop and the validator's dials are refused).
    await waitFor(
      () => chain(validator).head.height,
      (h) => h >= cutAt + 10,
      10_000,
      'ten more blocks on the validator',
    );
    expect(chain(compute).head.height).toBeLessThanOrEqual(cutAt + 1);
    expect(p2p(compute).peerList()).toEqual([]);
    expect(p2p(compute).deniedPeers).toEqual([validatorId]);
    expect(() => p2p(compute).denyPeers(['not-a-peer-id'])).toThrow();
    expect(p2p(compute).deniedPeers).toEqual([validatorId]);
    p2p(compute).denyPeers([]);
    await waitFor(
      () => chain(compute).head.height,
      (h) => h >= chain(validator).head.height - 2 && h > cutAt + 5,
      15_000,
      'the follower to reconnect and catch up',
    );
  });
});
