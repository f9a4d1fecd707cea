import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  devnetKey,
  generateKeyPair,
  jobPayload,
  rawTransaction,
  signTransaction,
  SvcClient,
  toHex,
} from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import { jobKey } from '../../plugins/oon/jobs/state.js';
import { JOB_PARAMS } from '../../plugins/oon/jobs/params.js';
import { jobsGenesis } from '../../plugins/oon/jobs/genesis.js';
import { fixture } from '../helpers/wat.js';
import { failure } from '../helpers/rpc-failure.js';
import { startTestNode, tempDir, type TestNode } from '../helpers/test-node.js';

// Two nodes on one genesis (a settled job's record stays 5 blocks), neither producing: the test makes
// the same blocks on both with the validator key, so they must agree on every state root. One is an
// archive, the other keeps 10 blocks of history.
const RECORD_BLOCKS = 5;
const HISTORY_BLOCKS = 10;
const validatorKey = devnetKey('validator', 0);
const requester = generateKeyPair();
let archive: TestNode;
let windowed: TestNode;
const chains: Chain[] = [];

beforeAll(async () => {
  const genesis = join(tempDir(), 'genesis.json');
  writeFileSync(
    genesis,
    JSON.stringify({
      chainId: 'svc-records-1',
      timestamp: 1_700_000_000_000,
      validatorKey: toHex(validatorKey.publicKey),
      validator: validatorKey.address,
      accounts: [{ address: requester.address, omc: '1000', ogt: '0' }],
      jobRecordBlocks: RECORD_BLOCKS,
    }),
  );
  [archive, windowed] = await Promise.all([
    startTestNode({ role: 'full', genesis, chain: { receiptArchive: true } }),
    startTestNode({ role: 'full', genesis, chain: { historyBlocks: HISTORY_BLOCKS } }),
  ]);
  chains.push(archive.node.service<Chain>('chain'), windowed.node.service<Chain>('chain'));
}, 60_000);
afterAll(async () => {
  await archive?.stop();
  await windowed?.stop();
});

/** The same block on both nodes; they must reach one state root. */
async function block(timestamp: number): Promise<void> {
  const [a, b] = await Promise.all(chains.map((chain) => chain.produceBlock(validatorKey, timestamp)));
  expect(b!.stateRoot).toBe(a!.stateRoot);
}

describe('job records', () => {
  it('leave the state jobRecordBlocks after they settle, on every node alike; an archive answers for them always, a windowed node within its history window', async () => {
    // A job no provider takes (there is none): it settles as expired after its queue window.
    const tx = signTransaction(
      {
        chainId: 'svc-records-1',
        kind: 'oon.submitJob',
        nonce: 0,
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
    await Promise.all(
      [archive, windowed].map((node) => new SvcClient(node.url).sendRawTransaction(rawTransaction(tx))),
    );
    const start = chains[0]!.head.timestamp;
    await block(start + 1000);
    await block(start + JOB_PARAMS.queueWindow.ms + 2000);
    while (
      chains[0]!.state.get(jobKey(tx.hash)) &&
      (await new SvcClient(archive.url).getJob(tx.hash)).status === 'queued'
    )
      await block(chains[0]!.head.timestamp + 1000);
    const settled = await new SvcClient(archive.url).getJob(tx.hash);
    expect(settled.status).toBe('expired');
    const settledAt = settled.finalizedAt!;

    // In the state until jobRecordBlocks later, then out of it on both nodes.
    while (chains[0]!.head.height < settledAt + RECORD_BLOCKS - 1) await block(chains[0]!.head.timestamp + 1000);
    for (const chain of chains) expect(chain.state.get(jobKey(tx.hash))).toBeDefined();
    await block(chains[0]!.head.timestamp + 1000);
    for (const chain of chains) expect(chain.state.get(jobKey(tx.hash))).toBeUndefined();
    // From history: both answer, with the record as it was.
    for (const node of [archive, windowed]) expect(await new SvcClient(node.url).getJob(tx.hash)).toEqual(settled);
    expect((await new SvcClient(windowed.url).listJobs({ requester: requester.address })).jobs).toEqual([settled]);

    // Past the windowed node's history: it says the record was pruned (its submission is still there); the archive answers.
    while (chains[0]!.head.height < settledAt + RECORD_BLOCKS + HISTORY_BLOCKS + 1)
      await block(chains[0]!.head.timestamp + 1000);
    const gone = await failure(new SvcClient(windowed.url).getJob(tx.hash), 'a job past the history window');
    expect({ code: gone.code, message: gone.message, data: gone.data }).toMatchObject({
      code: -32031,
      message: 'pruned',
      data: { jobId: tx.hash, submittedAt: settled.submittedAt },
    });
    expect(gone.data?.reason).toMatch(
      /has left the state \(a settled job's record leaves it 5 blocks after it settles\) and this node's history: an archive node keeps it/,
    );
    // An id no job ever had is still not_found.
    expect((await failure(new SvcClient(windowed.url).getJob(`0x${'ab'.repeat(32)}`))).message).toBe('not_found');
    expect(await new SvcClient(archive.url).getJob(tx.hash)).toEqual(settled);
  });

  const NO_GENESIS = { validator: '', validatorKey: '', accounts: [] };
  it('refuse a genesis jobRecordBlocks that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, '10'])
      expect(() => jobsGenesis({ ...NO_GENESIS, network: 'x', params: { jobRecordBlocks: bad } })).toThrow(
        'genesis "jobRecordBlocks" must be a positive integer',
      );
    expect(jobsGenesis({ ...NO_GENESIS, network: 'devnet', params: {} })).toEqual([]);
  });
});
