import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dealPayload,
  devnetKey,
  generateKeyPair,
  rawTransaction,
  signTransaction,
  SvcClient,
  toHex,
  UNIT,
  type SignedTransaction,
  type UploadedObject,
} from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import { dealKey, objectDealsKey } from '../../plugins/omp/deals/state.js';
import { DEAL_PARAMS } from '../../plugins/omp/deals/params.js';
import { dealRetention } from '../../plugins/omp/deals/state.js';
import { failure } from '../helpers/rpc-failure.js';
import { startTestNode, tempDir, type TestNode } from '../helpers/test-node.js';

// Two nodes on one genesis (an ended deal's record stays 5 blocks), neither producing: the test makes
// the same blocks on both with the validator key, so they must agree on every state root. One is an
// archive, the other keeps 10 blocks of history. The storage provider is a key only: no provider ever
// accepts, so the deals fail once their acceptance window has passed.
const RECORD_BLOCKS = 5;
const HISTORY_BLOCKS = 10;
const CHAIN_ID = 'svc-deal-records-1';
const validatorKey = devnetKey('validator', 0);
const provider = generateKeyPair();
const buyer = generateKeyPair();
const object: UploadedObject = {
  cid: 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku',
  size: 1000,
  root: `0x${'11'.repeat(32)}`,
  format: 'image',
  mediaType: 'image/png',
};
let archive: TestNode;
let windowed: TestNode;
const chains: Chain[] = [];
let buyerNonce = 0;

beforeAll(async () => {
  const genesis = join(tempDir(), 'genesis.json');
  const accounts = [
    { address: provider.address, omc: '0', ogt: '1000' },
    { address: buyer.address, omc: '1000', ogt: '0' },
  ];
  writeFileSync(
    genesis,
    JSON.stringify({
      chainId: CHAIN_ID,
      timestamp: 1_700_000_000_000,
      validatorKey: toHex(validatorKey.publicKey),
      validator: validatorKey.address,
      accounts,
      dealRecordBlocks: RECORD_BLOCKS,
    }),
  );
  [archive, windowed] = await Promise.all([
    startTestNode({ role: 'full', genesis, chain: { receiptArchive: true } }),
    startTestNode({ role: 'full', genesis, chain: { historyBlocks: HISTORY_BLOCKS } }),
  ]);
  chains.push(archive.node.service<Chain>('chain'), windowed.node.service<Chain>('chain'));
  await send(
    signTransaction(
      {
        chainId: CHAIN_ID,
        kind: 'omp.register',
        nonce: 0,
        payload: {
          peerId: 'a-provider',
          bond: (500n * UNIT).toString(),
          details: { capacityGb: '1', formats: ['image'] },
        },
      },
      provider,
    ),
  );
  await block(1000);
}, 60_000);
afterAll(async () => {
  await archive?.stop();
  await windowed?.stop();
});

/** The same transaction to both nodes. */
async function send(tx: SignedTransaction): Promise<void> {
  await Promise.all([archive, windowed].map((node) => new SvcClient(node.url).sendRawTransaction(rawTransaction(tx))));
}

/** The same block on both nodes, `after` ms after the head; they must reach one state root. */
async function block(after: number): Promise<void> {
  const timestamp = chains[0]!.head.timestamp + after;
  const [a, b] = await Promise.all(chains.map((chain) => chain.produceBlock(validatorKey, timestamp)));
  expect(b!.stateRoot).toBe(a!.stateRoot);
}

async function createDeal(): Promise<string> {
  const tx = signTransaction(
    {
      chainId: CHAIN_ID,
      kind: 'omp.createDeal',
      nonce: buyerNonce++,
      payload: dealPayload({ object, provider: provider.address, replicas: 1, durationBlocks: 10, price: UNIT }),
    },
    buyer,
  );
  await send(tx);
  await block(1000);
  return tx.hash;
}

describe('deal records', () => {
  it('leave the state dealRecordBlocks after the deal ends, with their object, on every node alike; an archive answers for them always, a windowed node within its history window', async () => {
    const archived = new SvcClient(archive.url);
    const first = await createDeal();
    await block(DEAL_PARAMS.acceptWindow.ms / 2);
    const second = await createDeal();
    // The first deal's window passes (its time, then its blocks); the second's time has not come.
    await block(DEAL_PARAMS.acceptWindow.ms / 2 + 1000);
    while ((await archived.getDeal(first)).status === 'pending') await block(1000);
    const failed = await archived.getDeal(first);
    expect(failed).toMatchObject({ status: 'failed', escrow: '0' });
    expect((await archived.getDeal(second)).status).toBe('pending');
    const endedAt = chains[0]!.head.height;

    // In the state until dealRecordBlocks later, then out of it on both nodes, and out of its object's list.
    while (chains[0]!.head.height < endedAt + RECORD_BLOCKS - 1) await block(1000);
    for (const chain of chains) expect(chain.state.get(dealKey(first))).toBeDefined();
    expect((await archived.getObject(object.cid)).deals).toEqual([first, second]);
    await block(1000);
    for (const chain of chains) expect(chain.state.get(dealKey(first))).toBeUndefined();
    for (const node of [archive, windowed]) {
      const client = new SvcClient(node.url);
      expect((await client.getObject(object.cid)).deals).toEqual([second]);
      // From history: both answer, with the record as it was.
      expect(await client.getDeal(first)).toEqual(failed);
      expect((await client.listObjects({ client: buyer.address })).objects.map((o) => o.deals)).toEqual([[second]]);
    }

    // The second deal fails too: once it has left the state, so has its object.
    while ((await archived.getDeal(second)).status === 'pending') await block(1000);
    const secondEnded = chains[0]!.head.height;
    while (chains[0]!.head.height < secondEnded + RECORD_BLOCKS) await block(1000);
    for (const chain of chains) expect(chain.state.get(objectDealsKey(object.cid))).toBeUndefined();
    expect((await failure(archived.getObject(object.cid))).message).toBe('not_found');
    expect((await archived.listObjects({ client: buyer.address })).objects).toEqual([]);

    // Past the windowed node's history: it says the record was pruned (its creation is still there); the archive answers.
    while (chains[0]!.head.height < endedAt + RECORD_BLOCKS + HISTORY_BLOCKS + 1) await block(1000);
    const gone = await failure(new SvcClient(windowed.url).getDeal(first), 'a deal past the history window');
    expect({ code: gone.code, message: gone.message, data: gone.data }).toMatchObject({
      code: -32031,
      message: 'pruned',
      data: { dealId: first, createdAt: failed.createdAt },
    });
    expect(gone.data?.reason).toMatch(
      /has left the state \(an ended deal's record leaves it 5 blocks after it closes or fails\) and this node's history: an archive node keeps it/,
    );
    expect((await failure(new SvcClient(windowed.url).getDeal(`0x${'ab'.repeat(32)}`))).message).toBe('not_found');
    expect(await archived.getDeal(first)).toEqual(failed);
  });

  it('refuse a genesis dealRecordBlocks that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, '10'])
      expect(() =>
        dealRetention.genesis({
          validator: '',
          validatorKey: '',
          accounts: [],
          network: 'x',
          params: { dealRecordBlocks: bad },
        }),
      ).toThrow('genesis "dealRecordBlocks" must be a positive integer');
  });
});
