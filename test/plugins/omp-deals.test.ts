import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, SvcClient, UNIT, type UploadedObject } from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import type { ProviderService } from '../../plugins/providers/service.js';
import type { StorageObjects } from '../../plugins/omp-storage/objects.js';
import { DEAL_PARAMS } from '../../plugins/omp/deals/params.js';
import { failure } from '../helpers/rpc-failure.js';
import { media } from '../helpers/media.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A validator whose block timer never fires (an hour): the test makes each block itself, at the
// times it chooses, so deal windows and terms pass in a moment. The node is its own storage provider.
let node: TestNode;
let chain: Chain;
let client: SvcClient;
let operator: string;
const buyer = generateKeyPair();
const validatorKey = devnetKey('validator', 0);

/** One block, a second after the last. */
async function block(after = 1000): Promise<void> {
  await chain.produceBlock(validatorKey, chain.head.timestamp + after);
}

/** Blocks until `ready` holds (the node's own transactions reach the mempool between them). */
async function blocksUntil(ready: () => Promise<boolean>, limit = 50): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await ready()) return;
    await waitFor(
      () => chain.mempool.size,
      (size) => size > 0,
      2_000,
      'a transaction to mine',
    ).catch(() => undefined);
    await block();
  }
  throw new Error(`not ready after ${limit} blocks`);
}

const omc = async (address: string): Promise<bigint> => (await client.getBalance(address)).omc;

/**
 * Blocks to the end of a deal's term. With `answered`, whenever the provider has an open challenge
 * the next block waits for its proof to reach the mempool (the node answers on its own, a moment
 * after the block that issued the challenge).
 */
async function untilClosed(dealId: string, answered: boolean): Promise<void> {
  for (;;) {
    const deal = await client.getDeal(dealId);
    if (deal.status === 'closed') return;
    if (answered && deal.providers.some((r) => r.challenge && !r.faulty))
      await waitFor(
        () => chain.mempool.size,
        (size) => size > 0,
        10_000,
        'the proof to reach the mempool',
      );
    await block();
  }
}

beforeAll(async () => {
  node = await startTestNode({ ...plainDevnet(), validator: { blockTime: 3_600_000 } });
  chain = node.node.service<Chain>('chain');
  client = new SvcClient(node.url);
  operator = node.node.keys.operator.address;
  await client.transfer(devnetKey('account', 5), operator, 'OGT', 1000n * UNIT);
  await client.transfer(devnetKey('account', 6), buyer.address, 'OMC', 100n * UNIT);
  await block();
  await client.ompRegisterStorageNode({
    operator,
    storage_capacity_gb: 0.05,
    bond_ogt: 500,
    supported_formats: ['image'],
  });
  await blocksUntil(async () => (await client.ompStorageStatus()).status === 'active');
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

describe('storage deals', () => {
  let object: UploadedObject;

  it('a deal on an object its provider holds goes active once the provider accepts; each passed proof pays its period, the term pays the price', async () => {
    object = await client.uploadObject(media.png(3 * 1_048_576 + 5));
    expect(object).toMatchObject({
      mediaType: 'image/png',
      format: 'image',
      root: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const [buyerBefore, providerBefore] = [await omc(buyer.address), await omc(operator)];
    const { dealId } = await client.createDeal(buyer, {
      object,
      provider: operator,
      replicas: 1,
      durationBlocks: 25,
      price: 7n * UNIT,
    });
    await blocksUntil(async () => (await client.getDeal(dealId).catch(() => undefined))?.status === 'active');
    const active = await client.getDeal(dealId);
    expect(active).toMatchObject({
      status: 'active',
      cid: object.cid,
      size: object.size,
      client: buyer.address,
      replicas: 1,
      escrow: (7n * UNIT).toString(),
      paid: '0',
    });
    expect(active.providers).toEqual([
      {
        provider: operator,
        acceptedAt: active.startBlock,
        lastProof: null,
        faults: 0,
        faulty: false,
        paid: '0',
        challenge: { period: 0, issuedAt: active.startBlock, indexes: expect.any(Array) },
      },
    ]);
    expect(active.endBlock).toBe(active.startBlock! + 25);
    expect(await omc(buyer.address)).toBe(buyerBefore - 7n * UNIT);
    expect(await client.getObject(object.cid)).toEqual({
      cid: object.cid,
      size: object.size,
      mediaType: 'image/png',
      format: 'image',
      deals: [dealId],
      providers: [operator],
    });
    expect((await client.listObjects({ client: buyer.address })).objects.map((o) => o.cid)).toEqual([object.cid]);

    // Periods of 10 blocks: 10 + 10 + 5, each share of the price paid on its proof.
    await untilClosed(dealId, true);
    const closed = await client.getDeal(dealId);
    expect(closed).toMatchObject({ status: 'closed', escrow: '0', paid: (7n * UNIT).toString(), faults: 0 });
    expect(closed.providers[0]).toMatchObject({
      faults: 0,
      faulty: false,
      paid: (7n * UNIT).toString(),
      challenge: null,
    });
    expect(closed.lastProof).toBeGreaterThan(active.startBlock! + 20);
    expect(await omc(operator)).toBe(providerBefore + 7n * UNIT);
    expect(await omc(buyer.address)).toBe(buyerBefore - 7n * UNIT);
    // As it was after past blocks: active with the whole price in escrow at its start, as now at its last proof.
    expect(await client.getDeal(dealId, active.startBlock!)).toEqual(active);
    expect(await client.getDeal(dealId, 'latest')).toEqual(closed);
    expect((await failure(client.getDeal(dealId, active.createdAt - 1))).message).toBe('not_found');
  });

  it('refuses a deal for more replicas than there are providers with room, charging nothing', async () => {
    const before = await omc(buyer.address);
    const { dealId } = await client.createDeal(buyer, {
      object,
      provider: operator,
      replicas: 2,
      durationBlocks: 10,
      price: UNIT,
    });
    await block();
    const error = await failure(client.waitForDeal(dealId, { timeoutMs: 5_000 }), 'a deal without enough providers');
    expect(error.message).toBe('capacity_exceeded');
    expect(String(error.data?.reason)).toMatch(
      /2 replicas need 1 more providers of image with \d+ bytes of room; there are 0/,
    );
    expect(await omc(buyer.address)).toBe(before);
  });

  it('refunds a deal its provider never accepts (it does not hold the object) once the acceptance window has passed', async () => {
    const before = await omc(buyer.address);
    const absent: UploadedObject = {
      ...object,
      cid: 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku',
      size: 1000,
    };
    const { dealId } = await client.createDeal(buyer, {
      object: absent,
      provider: operator,
      replicas: 1,
      durationBlocks: 10,
      price: 3n * UNIT,
    });
    await block();
    expect(await client.getDeal(dealId)).toMatchObject({ status: 'pending' });
    expect(await omc(buyer.address)).toBe(before - 3n * UNIT);
    // The window's time, then its blocks.
    await block(DEAL_PARAMS.acceptWindow.ms + 1000);
    for (let i = 0; i <= DEAL_PARAMS.acceptWindow.blocks && (await client.getDeal(dealId)).status === 'pending'; i++)
      await block();
    const failed = await client.getDeal(dealId);
    expect(failed).toMatchObject({ status: 'failed', escrow: '0', paid: '0' });
    expect(failed.reason).toBe(`not accepted in time by ${operator}`);
    expect(await omc(buyer.address)).toBe(before);
    // Its room is free again: an object that needs nearly all of it gets a deal.
    const big = await client.uploadObject(media.png(40 * 1_048_576));
    const { dealId: next } = await client.createDeal(buyer, {
      object: big,
      provider: operator,
      replicas: 1,
      durationBlocks: 10,
      price: UNIT,
    });
    await blocksUntil(async () => (await client.getDeal(next).catch(() => undefined))?.status === 'active');
    await untilClosed(next, true);
  });

  it('an honest provider passes every challenge for 50 periods', async () => {
    const stored = await client.uploadObject(media.png(2 * 1_048_576 + 99));
    const { dealId } = await client.createDeal(buyer, {
      object: stored,
      provider: operator,
      replicas: 1,
      durationBlocks: 50 * DEAL_PARAMS.proofPeriodBlocks,
      price: 50n * UNIT,
    });
    await blocksUntil(async () => (await client.getDeal(dealId).catch(() => undefined))?.status === 'active');
    await untilClosed(dealId, true);
    const closed = await client.getDeal(dealId);
    expect(closed).toMatchObject({ status: 'closed', faults: 0, paid: (50n * UNIT).toString(), escrow: '0' });
  }, 120_000);

  it('a provider whose copy was damaged on disk fails its next challenges: slashed to the client, pay withheld and refunded, faulty after 3', async () => {
    const stored = await client.uploadObject(media.png(1_048_576 + 3));
    const { dealId } = await client.createDeal(buyer, {
      object: stored,
      provider: operator,
      replicas: 1,
      durationBlocks: 5 * DEAL_PARAMS.proofPeriodBlocks,
      price: 5n * UNIT,
    });
    await blocksUntil(async () => (await client.getDeal(dealId).catch(() => undefined))?.status === 'active');
    // The first challenge is answered from the intact copy and paid (a fifth of the price).
    await waitFor(
      () => chain.mempool.size,
      (size) => size > 0,
      10_000,
      'the first proof',
    );
    await block();
    expect((await client.getDeal(dealId)).providers[0]).toMatchObject({ paid: UNIT.toString(), challenge: null });
    const [buyerOmc, buyerOgt, bond] = [
      await omc(buyer.address),
      (await client.getBalance(buyer.address)).ogt,
      (await client.getBalance(operator)).bonded.storage!,
    ];
    // The test damages the file itself: every byte after the PNG head.
    const path = join(node.dataDir, 'objects', 'blobs', stored.cid);
    writeFileSync(path, Buffer.concat([readFileSync(path).subarray(0, 64), Buffer.alloc(stored.size - 64, 0xee)]));
    await untilClosed(dealId, false);
    const closed = await client.getDeal(dealId);
    expect(closed.providers[0]).toMatchObject({ faults: 3, faulty: true, paid: UNIT.toString() });
    expect(closed).toMatchObject({ status: 'closed', paid: UNIT.toString(), escrow: '0' });
    // Three faults, 1% of the bond each, to the client; the unpaid four fifths of the price back to it.
    const afterFirst = bond - bond / 100n;
    const afterSecond = afterFirst - afterFirst / 100n;
    const afterThird = afterSecond - afterSecond / 100n;
    expect((await client.getBalance(operator)).bonded.storage).toBe(afterThird);
    expect((await client.getBalance(buyer.address)).ogt).toBe(buyerOgt + (bond - afterThird));
    expect(await omc(buyer.address)).toBe(buyerOmc + 4n * UNIT);
    expect(node.logs.text()).toContain(`the copy of ${stored.cid} is damaged`);
  });

  it('drops objects that no pending or active deal names, once older than the grace period', async () => {
    const loose = await client.uploadObject(media.png(100_000));
    const kept = await client.uploadObject(media.png(200_000));
    const { dealId } = await client.createDeal(buyer, {
      object: kept,
      provider: operator,
      replicas: 1,
      durationBlocks: 1000,
      price: UNIT,
    });
    await blocksUntil(async () => (await client.getDeal(dealId).catch(() => undefined))?.status === 'active');
    const objects = node.node.service<ProviderService<StorageObjects>>('omp-storage').extension;
    // Within the grace period (an hour by default) nothing goes.
    const before = (await client.ompStorageStatus()).objects;
    await objects.sweep(Date.now() + 60_000);
    expect((await client.ompStorageStatus()).objects).toBe(before);
    // Past it: the upload no deal followed goes, and so do the objects whose deals have closed; the one with an active deal stays.
    await objects.sweep(Date.now() + 3_601_000);
    expect(objects.store.list().map((o) => o.cid)).toEqual([kept.cid]);
    expect((await fetch(`${node.url}/ipfs/${loose.cid}`)).status).toBe(404);
    expect((await fetch(`${node.url}/ipfs/${kept.cid}`)).status).toBe(200);
  });

  it('counts its objects, stored bytes and its challenges passed and failed in /metrics', async () => {
    const text = await (await fetch(`${node.url}/metrics`)).text();
    const value = (name: string): number =>
      Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('svc_omp_objects')).toBe(1);
    expect(value('svc_omp_stored_bytes')).toBe((await client.ompStorageStatus()).usedBytes);
    expect(value('svc_omp_proofs_total{result="failed"}')).toBe(3);
    expect(value('svc_omp_proofs_total{result="passed"}')).toBeGreaterThan(50);
  });

  it('a node synced from genesis reaches the same state root, deals and proofs included', async () => {
    const follower = await startTestNode({
      ...plainDevnet(),
      role: 'full',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [node.node.service<P2pService>('p2p').listenAddresses[0]!] },
    });
    try {
      const followed = follower.node.service<Chain>('chain');
      await waitFor(
        () => followed.head.height,
        (height) => height === chain.head.height,
        30_000,
        'the follower to reach the head',
      );
      expect(followed.head.stateRoot).toBe(chain.head.stateRoot);
      expect(followed.state.root()).toBe(chain.state.root());
    } finally {
      await follower.stop();
    }
  });
});
