import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, SvcClient, UNIT, type UploadedObject } from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import { DEAL_PARAMS } from '../../plugins/omp/deals/params.js';
import { failure } from '../helpers/rpc-failure.js';
import { media } from '../helpers/media.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';

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
    await waitFor(() => chain.mempool.size, (size) => size > 0, 2_000, 'a transaction to mine').catch(() => undefined);
    await block();
  }
  throw new Error(`not ready after ${limit} blocks`);
}

const omc = async (address: string): Promise<bigint> => (await client.getBalance(address)).omc;

beforeAll(async () => {
  node = await startTestNode({ validator: { blockTime: 3_600_000 } });
  chain = node.node.service<Chain>('chain');
  client = new SvcClient(node.url);
  operator = node.node.keys.operator.address;
  await client.transfer(devnetKey('account', 5), operator, 'OGT', 1000n * UNIT);
  await client.transfer(devnetKey('account', 6), buyer.address, 'OMC', 100n * UNIT);
  await block();
  await client.ompRegisterStorageNode({ operator, storage_capacity_gb: 0.05, bond_ogt: 500, supported_formats: ['image'] });
  await blocksUntil(async () => (await client.ompStorageStatus()).status === 'active');
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

describe('storage deals', () => {
  let object: UploadedObject;

  it('a deal on an object its provider holds goes active once the provider accepts, and pays it at the end of the term', async () => {
    object = await client.uploadObject(media.png(3 * 1_048_576 + 5));
    expect(object).toMatchObject({ mediaType: 'image/png', format: 'image', root: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const [buyerBefore, providerBefore] = [await omc(buyer.address), await omc(operator)];
    const { dealId } = await client.createDeal(buyer, { object, provider: operator, replicas: 1, durationBlocks: 10, price: 7n * UNIT });
    await blocksUntil(async () => (await client.getDeal(dealId).catch(() => undefined))?.status === 'active');
    const active = await client.getDeal(dealId);
    expect(active).toMatchObject({ status: 'active', cid: object.cid, size: object.size, client: buyer.address, replicas: 1, escrow: (7n * UNIT).toString(), paid: '0' });
    expect(active.providers).toEqual([{ provider: operator, acceptedAt: active.startBlock }]);
    expect(active.endBlock).toBe(active.startBlock! + 10);
    expect(await omc(buyer.address)).toBe(buyerBefore - 7n * UNIT);
    expect(await client.getObject(object.cid)).toEqual({ cid: object.cid, size: object.size, mediaType: 'image/png', format: 'image', deals: [dealId], providers: [operator] });
    expect((await client.listObjects({ client: buyer.address })).objects.map((o) => o.cid)).toEqual([object.cid]);

    while (chain.head.height < active.endBlock!) await block();
    const closed = await client.getDeal(dealId);
    expect(closed).toMatchObject({ status: 'closed', escrow: '0', paid: (7n * UNIT).toString() });
    expect(await omc(operator)).toBe(providerBefore + 7n * UNIT);
  });

  it('refuses a deal for more replicas than there are providers with room, charging nothing', async () => {
    const before = await omc(buyer.address);
    const { dealId } = await client.createDeal(buyer, { object, provider: operator, replicas: 2, durationBlocks: 10, price: UNIT });
    await block();
    const error = await failure(client.waitForDeal(dealId, { timeoutMs: 5_000 }), 'a deal without enough providers');
    expect(error.message).toBe('capacity_exceeded');
    expect(String(error.data?.reason)).toMatch(/2 replicas need 1 more providers of image with \d+ bytes of room; there are 0/);
    expect(await omc(buyer.address)).toBe(before);
  });

  it('refunds a deal its provider never accepts (it does not hold the object) once the acceptance window has passed', async () => {
    const before = await omc(buyer.address);
    const absent: UploadedObject = { ...object, cid: 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku', size: 1000 };
    const { dealId } = await client.createDeal(buyer, { object: absent, provider: operator, replicas: 1, durationBlocks: 10, price: 3n * UNIT });
    await block();
    expect(await client.getDeal(dealId)).toMatchObject({ status: 'pending' });
    expect(await omc(buyer.address)).toBe(before - 3n * UNIT);
    // The window's time, then its blocks.
    await block(DEAL_PARAMS.acceptWindow.ms + 1000);
    for (let i = 0; i <= DEAL_PARAMS.acceptWindow.blocks && (await client.getDeal(dealId)).status === 'pending'; i++) await block();
    const failed = await client.getDeal(dealId);
    expect(failed).toMatchObject({ status: 'failed', escrow: '0', paid: '0' });
    expect(failed.reason).toBe(`not accepted in time by ${operator}`);
    expect(await omc(buyer.address)).toBe(before);
    // Its room is free again: an object that needs nearly all of it gets a deal.
    const big = await client.uploadObject(media.png(40 * 1_048_576));
    const { dealId: next } = await client.createDeal(buyer, { object: big, provider: operator, replicas: 1, durationBlocks: 10, price: UNIT });
    await blocksUntil(async () => (await client.getDeal(next).catch(() => undefined))?.status === 'active');
  });
});
