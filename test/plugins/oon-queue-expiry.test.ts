import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  devnetKey,
  generateKeyPair,
  rawTransaction,
  signTransaction,
  jobPayload,
  SvcClient,
  transferPayload,
  UNIT,
  type JobView,
} from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import { JOB_PARAMS } from '../../plugins/oon/jobs/params.js';
import { fixture } from '../helpers/wat.js';
import { startTestNode, type TestNode } from '../helpers/test-node.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// A node without a block producer: the test makes each block itself with the dev validator key, at
// the timestamps it chooses, so a ten-minute queue window passes in a few seconds.
let node: TestNode;
let chain: Chain;
let client: SvcClient;
const validatorKey = devnetKey('validator', 0);
const requester = generateKeyPair();

async function block(timestamp: number): Promise<void> {
  await chain.produceBlock(validatorKey, timestamp);
}

beforeAll(async () => {
  node = await startTestNode({ ...plainDevnet(), role: 'full' });
  chain = node.node.service<Chain>('chain');
  client = new SvcClient(node.url);
  const funding = signTransaction(
    {
      chainId: chain.head.chainId,
      kind: 'transfer',
      nonce: 0,
      payload: transferPayload(requester.address, 'OMC', 100n * UNIT),
    },
    devnetKey('account', 2),
  );
  await client.sendRawTransaction(rawTransaction(funding));
  await block(chain.head.timestamp + 1000);
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

/** Submits a job no provider can take (there is none) and mines it; returns its id and the block time it was mined at. */
async function submitUnassignable(nonce: number): Promise<{ jobId: string; at: number; height: number }> {
  const tx = signTransaction(
    {
      chainId: chain.head.chainId,
      kind: 'oon.submitJob',
      nonce,
      payload: jobPayload({
        runtime: 'wasm',
        code: fixture('upper'),
        input: new Uint8Array(),
        gasLimit: 10_000n,
        gasPrice: 1n,
      }),
    },
    requester,
  );
  await client.sendRawTransaction(rawTransaction(tx));
  const at = chain.head.timestamp + 1000;
  await block(at);
  return { jobId: tx.hash, at, height: chain.head.height };
}

// Each test makes over 600 blocks itself: CPU work of a known size, which a busy machine does slowly; a
// test cut off by its timeout would go on making blocks under the next one.
describe('a job no provider takes', { timeout: 180_000 }, () => {
  it('waits, saying why, until both the blocks and the time of its queue window have passed, then expires with its escrow refunded', async () => {
    const before = (await client.getBalance(requester.address)).omc;
    const { jobId, at, height } = await submitUnassignable(0);
    const waiting = await client.getJob(jobId);
    expect(waiting).toMatchObject({ status: 'queued' });
    expect(waiting.reason).toMatch(/no active provider offers wasm/);
    expect((await client.getBalance(requester.address)).omc).toBe(before - 10_000n);

    // The window's time passes first (one block an hour later): still short of its blocks, it waits.
    await block(at + JOB_PARAMS.queueWindow.ms + 3_600_000);
    expect((await client.getJob(jobId)).status).toBe('queued');
    // Block by block (a second apart) to the window's height: it expires in the first block past it.
    let expired: JobView | undefined;
    while (!expired) {
      await block(chain.head.timestamp + 1000);
      const job = await client.getJob(jobId);
      if (job.status !== 'queued') expired = job;
    }
    expect(chain.head.height).toBe(height + JOB_PARAMS.queueWindow.blocks + 1);
    expect(expired).toMatchObject({ status: 'expired' });
    expect(expired.reason).toMatch(/no provider took it within 600 blocks and 600 s/);
    expect((await client.getBalance(requester.address)).omc).toBe(before);
  });

  it('expires when its time comes after its blocks: the window is counted in both', async () => {
    const before = (await client.getBalance(requester.address)).omc;
    const nonce = await client.getNonce(requester.address);
    const { jobId, at } = await submitUnassignable(nonce);
    // The window's blocks pass a millisecond apart: not its time yet.
    for (let i = 0; i < JOB_PARAMS.queueWindow.blocks + 5; i++) await block(chain.head.timestamp + 1);
    expect((await client.getJob(jobId)).status).toBe('queued');
    await block(at + JOB_PARAMS.queueWindow.ms);
    expect((await client.getJob(jobId)).status).toBe('queued');
    // Deadlines are looked at once a second of block time: the first block a second on ends it.
    await block(at + JOB_PARAMS.queueWindow.ms + 1000);
    expect((await client.getJob(jobId)).status).toBe('expired');
    expect((await client.getBalance(requester.address)).omc).toBe(before);
  });
});
