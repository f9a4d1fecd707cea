import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { peerOf, snapshotStoreOf, said } from './peering.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chain } from '../../../chain/chain.js';
import { chunkDigest, decodeManifest, encodeManifest } from '../../../chain/snapshots/format.js';
import { decode, encode } from '../../../sdk/encoding.js';
import { devnetKey, SvcClient, UNIT } from '../../../sdk/index.js';
import { contracts } from '../../helpers/contracts.js';
import { rpc, startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';

// A validator that takes no snapshots, a follower that does (every 20 blocks), and new nodes that
// state-sync from it; some of its snapshot files are then tampered with by this test, as a lying peer
// would serve them.
const nodes: TestNode[] = [];
async function start(config: Parameters<typeof startTestNode>[0]): Promise<TestNode> {
  const node = await startTestNode(config);
  nodes.push(node);
  return node;
}
afterAll(async () => {
  for (const node of nodes.reverse()) await node.stop();
});

const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');

/** Copies the keeper's snapshots as taken; the function returned puts them back after a test made them lie. */
function keepHonestSnapshots(): () => void {
  const dir = join(keeper.dataDir, 'snapshots');
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return () => {
    rmSync(dir, { recursive: true, force: true });
    cpSync(copy, dir, { recursive: true });
    rmSync(copy, { recursive: true, force: true });
  };
}

let validator: TestNode;
let keeper: TestNode;
let trust: { height: number; hash: string };
let token: `0x${string}`;

beforeAll(async () => {
  validator = await start({ validator: { blockTime: 30 }, snapshots: { interval: 0 } });
  const client = new SvcClient(validator.url);
  for (let i = 0; i < 5; i++)
    await client.transfer(devnetKey('account', 1), devnetKey('account', 2).address, 'OMC', BigInt(i + 1) * UNIT);
  const artifact = contracts().Token as unknown as { abi: never; bytecode: `0x${string}` };
  const deployed = await client.deployContract(devnetKey('account', 3), { ...artifact, args: [5_000n] });
  await client.waitForTransaction(deployed.txHash, { pollMs: 20 });
  token = deployed.address as `0x${string}`;
  keeper = await start({ role: 'full', p2p: peerOf([validator]), snapshots: { interval: 20, keep: 10 } });
  await waitFor(
    async () => (await snapshotStoreOf(keeper).heights()).at(-1) ?? 0,
    (h) => h >= 40,
    30_000,
    'a snapshot at 40',
  );
  const block = await client.getBlockByNumber(20);
  trust = { height: 20, hash: block.hash };
}, 90_000);

describe('state sync', () => {
  it('a new node restores a snapshot at or after the trusted block, answers as the network does, and follows it; below the snapshot it answers pruned', async () => {
    const fresh = await start({
      role: 'full',
      p2p: peerOf([keeper]),
      snapshots: { stateSync: true, trustHeight: trust.height, trustHash: trust.hash },
    });
    await waitFor(() => said(fresh, 'state sync: done at block'), Boolean, 30_000, 'the state sync');
    const base = chainOf(fresh).baseHeight;
    expect(base).toBeGreaterThanOrEqual(40);
    expect(base % 20).toBe(0);
    await waitFor(
      () => chainOf(fresh).head.height,
      (h) => h >= chainOf(validator).head.height,
      20_000,
      'the new node to follow the chain',
    );
    const height = chainOf(fresh).head.height;
    const ours = new SvcClient(fresh.url);
    const theirs = new SvcClient(validator.url);
    expect((await ours.getBlockByNumber(height)).stateRoot).toBe((await theirs.getBlockByNumber(height)).stateRoot);
    for (const i of [1, 2, 3]) {
      const address = devnetKey('account', i).address;
      expect((await rpc(fresh.url, 'svc_getBalance', [address, height])).body).toEqual(
        (await rpc(validator.url, 'svc_getBalance', [address, height])).body,
      );
    }
    const slot = `0x${'0'.repeat(64)}`;
    expect((await rpc(fresh.url, 'eth_getStorageAt', [token, slot, 'latest'])).body.result).toBe(
      (await rpc(validator.url, 'eth_getStorageAt', [token, slot, 'latest'])).body.result,
    );
    expect((await rpc(fresh.url, 'svc_getBlockByNumber', [10])).body.error).toMatchObject({ message: 'pruned' });
    expect((await rpc(fresh.url, 'svc_getBalance', [devnetKey('account', 1).address, 10])).body.error).toMatchObject({
      message: 'pruned',
    });
  }, 60_000);

  it('a restore that stopped midway is wiped when the node opens again, which then serves its genesis state', async () => {
    const dataDir = tempDir();
    try {
      const store = snapshotStoreOf(keeper);
      const height = (await store.heights()).at(-1)!;
      const manifest = (await store.manifest(height))!;
      const first = await startTestNode({ role: 'full', dataDir, snapshots: { interval: 0 } });
      const assembly = await chainOf(first).beginRestore(manifest);
      for (const index of manifest.chunks.keys()) await assembly.add(index, (await store.chunk(height, index))!);
      await assembly.written();
      await assembly.close();
      // Every chunk is on disk, the last batch never written: as a node that stopped (or crashed) there.
      await first.stop();
      const again = await start({ role: 'full', dataDir, snapshots: { interval: 0 } });
      expect(said(again, `the restore of snapshot ${height} did not finish: its state is wiped`)).toBe(true);
      expect(chainOf(again).head.height).toBe(0);
      const deployer = devnetKey('account', 3).address;
      expect((await rpc(again.url, 'svc_getBalance', [deployer])).body.result).toEqual(
        (await rpc(keeper.url, 'svc_getBalance', [deployer, 0])).body.result,
      );
      expect((await rpc(again.url, 'svc_getBalance', [deployer])).body.result).not.toEqual(
        (await rpc(keeper.url, 'svc_getBalance', [deployer, height])).body.result,
      );
      await again.stop();
      nodes.splice(nodes.indexOf(again), 1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a chunk that does not match the manifest is refused, its sender refused, and it is fetched from another peer; nothing half-restored is served', async () => {
    // The chain stops, so the keeper takes no new snapshot past the ones this test makes lie (once it
    // holds the validator's last block and has written the snapshots it began).
    await validator.stop();
    nodes.splice(nodes.indexOf(validator), 1);
    const last = chainOf(validator).head.height;
    await waitFor(
      () => chainOf(keeper).head.height,
      (h) => h >= last,
      10_000,
      "the keeper to hold the validator's last block",
    );
    await snapshotStoreOf(keeper).idle();
    const putBack = keepHonestSnapshots();
    for (const height of await snapshotStoreOf(keeper).heights()) {
      const dir = join(keeper.dataDir, 'snapshots', String(height));
      const manifest = decodeManifest(readFileSync(join(dir, 'manifest')));
      // One value changed in every chunk, the digests made to match: it reads well, and lies.
      const chunks = manifest.chunks.map((chunk, i) => {
        const entries = decode<[string, Uint8Array][]>(readFileSync(join(dir, `chunk-${i}`)));
        const value = entries[0]![1];
        entries[0] = [entries[0]![0], Uint8Array.from([...value, 1])];
        const bytes = encode(entries);
        writeFileSync(join(dir, `chunk-${i}`), bytes);
        return { ...chunk, bytes: bytes.length, digest: chunkDigest(bytes) };
      });
      writeFileSync(join(dir, 'manifest'), encodeManifest({ ...manifest, chunks }));
    }
    // Only the lying peer at first: the new node meets its chunks before any other.
    const fresh = await start({
      role: 'full',
      p2p: peerOf([keeper]),
      snapshots: { stateSync: true, trustHeight: trust.height, trustHash: trust.hash },
    });
    await waitFor(() => said(fresh, 'is bad (chunk'), Boolean, 30_000, 'a bad chunk refused');
    expect(said(fresh, 'does not hash to the manifest')).toBe(true);
    expect(said(fresh, `refusing peer ${keeper.node.keys.peerId}`)).toBe(true);
    expect(chainOf(fresh).head.height).toBe(0);
    expect((await rpc(fresh.url, 'svc_getBalance', [devnetKey('account', 1).address])).body.result).toMatchObject({
      blockNumber: 0,
    });
    // An honest peer comes: it syncs the blocks from the keeper and takes the same snapshots on the way.
    await start({ role: 'full', p2p: peerOf([keeper, fresh]), snapshots: { interval: 20, keep: 10 } });
    await waitFor(() => said(fresh, 'state sync: done at block'), Boolean, 60_000, 'the state sync');
    const at = chainOf(fresh).head.height;
    expect(at).toBeGreaterThanOrEqual(40);
    expect((await new SvcClient(fresh.url).getBlockByNumber(at)).stateRoot).toBe(
      (await new SvcClient(keeper.url).getBlockByNumber(at)).stateRoot,
    );
    putBack();
  }, 120_000);

  it("a manifest whose buckets do not make the trusted block's state root is refused, and the snapshot taken from another peer", async () => {
    // Only the keeper stays: an honest peer the new node found through it would answer first.
    for (const node of nodes.splice(0).filter((node) => node !== keeper)) await node.stop();
    nodes.push(keeper);
    const heights = await snapshotStoreOf(keeper).heights();
    const dirOf = (height: number) => join(keeper.dataDir, 'snapshots', String(height));
    const honest = new Map(heights.map((height) => [height, readFileSync(join(dirOf(height), 'manifest'))]));
    for (const height of heights) {
      const manifest = decodeManifest(honest.get(height)!);
      const buckets = Buffer.from(manifest.buckets);
      buckets[0] = buckets[0]! ^ 0xff;
      writeFileSync(join(dirOf(height), 'manifest'), encodeManifest({ ...manifest, buckets }));
    }
    const syncing = { stateSync: true, trustHeight: trust.height, trustHash: trust.hash };
    const fresh = await start({ role: 'full', p2p: peerOf([keeper]), snapshots: syncing });
    await waitFor(() => said(fresh, 'its buckets do not make the state root'), Boolean, 30_000, 'a bad root refused');
    expect(chainOf(fresh).head.height).toBe(0);
    // A subtler lie: every snapshot but the oldest is the oldest's (manifest and chunks), under its own
    // height. Each chunk matches the manifest, whose buckets make the root it names: the block's
    // does not match, and the chunks written meanwhile are wiped.
    const [oldest, ...later] = heights;
    for (const height of later) {
      rmSync(dirOf(height), { recursive: true });
      cpSync(dirOf(oldest!), dirOf(height), { recursive: true });
      const manifest = decodeManifest(honest.get(oldest!)!);
      writeFileSync(join(dirOf(height), 'manifest'), encodeManifest({ ...manifest, height }));
    }
    const misled = await start({ role: 'full', p2p: peerOf([keeper]), snapshots: syncing });
    await waitFor(
      () => said(misled, "is not of the trusted chain's block"),
      Boolean,
      30_000,
      'the other block refused',
    );
    expect(chainOf(misled).head.height).toBe(0);
    expect((await rpc(misled.url, 'svc_getBalance', [devnetKey('account', 2).address])).body.result).toEqual(
      (await rpc(keeper.url, 'svc_getBalance', [devnetKey('account', 2).address, 0])).body.result,
    );
    await start({ role: 'full', p2p: peerOf([keeper, fresh, misled]), snapshots: { interval: 20, keep: 10 } });
    await waitFor(() => said(fresh, 'state sync: done at block'), Boolean, 60_000, 'the state sync');
    await waitFor(() => said(misled, 'state sync: done at block'), Boolean, 60_000, 'the state sync');
  }, 120_000);

  it('refuses --state-sync without the block to trust, naming the flags', async () => {
    await expect(startTestNode({ role: 'full', storage: 'memory', snapshots: { stateSync: true } })).rejects.toThrow(
      '--state-sync needs --trust-height and --trust-hash',
    );
  });
});
