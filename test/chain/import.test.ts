import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, encodeSigned, signHeader, SvcClient, UNIT, type BlockHeader, type Hex } from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import type { Block } from '../../chain/schemas.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { signedCommit } from '../helpers/commits.js';
import { accountKey } from '../../chain/state/accounts.js';

let validator: TestNode;

beforeAll(async () => {
  validator = await startTestNode({ validator: { blockTime: 50 } });
  const client = new SvcClient(validator.url);
  const txs = [];
  for (let i = 0; i < 6; i++)
    txs.push(
      await client.transfer(devnetKey('account', i), devnetKey('account', 9 - i).address, 'OMC', BigInt(i + 1) * UNIT),
    );
  await Promise.all(txs.map((tx) => client.waitForTransaction(tx.hash, { pollMs: 20 })));
});
afterAll(async () => {
  await validator.stop();
});

const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');

async function blockWithTransactions(chain: Chain, height: number): Promise<{ block: Block; raws: Uint8Array[] }> {
  const block = (await chain.getBlock(height))!;
  const raws = await Promise.all(
    block.transactions.map(async (hash) => encodeSigned((await chain.getTransaction(hash))!.tx)),
  );
  return { block, raws };
}

function headerOf(block: Block): BlockHeader {
  return {
    chainId: block.chainId,
    height: block.height,
    parentHash: block.parentHash as Hex,
    timestamp: block.timestamp,
    proposer: block.proposer as `svc1${string}`,
    proposerKey: block.proposerKey as Hex,
    txRoot: block.txRoot as Hex,
    stateRoot: block.stateRoot as Hex,
    receiptRoot: block.receiptRoot as Hex,
    lastCommit: block.lastCommit,
  };
}

function resign(block: Block, changes: Partial<BlockHeader>): Block {
  const header: BlockHeader = { ...headerOf(block), ...changes };
  return { ...signHeader(header, devnetKey('validator', 0)), transactions: block.transactions };
}

describe('block import', () => {
  it('a follower re-executes the validator blocks to the same state roots, and refuses forged ones', async () => {
    const follower = await startTestNode({ storage: 'memory', role: 'full' });
    try {
      const source = chainOf(validator);
      const target = chainOf(follower);
      const upTo = source.head.height;
      let forgedChecked = false;
      // Each block is announced decided (its state readable) before its write, and only once it passed every check.
      const order: string[] = [];
      const decidedReads: { height: number; fresh: Uint8Array | undefined; committed: Uint8Array | undefined }[] = [];
      const sender = accountKey(devnetKey('account', 0).address);
      follower.node.events.on('chain:decided', ({ height, read }) => {
        order.push(`decided ${height} over head ${target.head.height}`);
        decidedReads.push({ height, fresh: read(sender), committed: target.state.get(sender) });
      });
      follower.node.events.on('chain:block', ({ height }) => void order.push(`block ${height}`));
      // Forged blocks come certified (the devnet validator key is public): only their content gives them away.
      const certified = (block: Block) => signedCommit(block.chainId, block);
      for (let height = 1; height <= upTo; height++) {
        const { block, raws } = await blockWithTransactions(source, height);
        const commit = (await source.getCommit(height))!;
        if (!forgedChecked && block.transactions.length > 0 && height > 1) {
          forgedChecked = true;
          const wrongState = resign(block, { stateRoot: `0x${'ab'.repeat(32)}` });
          await expect(target.importBlock(wrongState, raws, certified(wrongState))).rejects.toThrow(
            /state root mismatch/,
          );
          const badSignature = { ...block, signature: `0x${'00'.repeat(64)}` };
          await expect(target.importBlock(badSignature, raws, commit)).rejects.toThrow(/bad proposer signature/);
          const wrongReceipts = resign(block, { receiptRoot: `0x${'cd'.repeat(32)}` });
          await expect(target.importBlock(wrongReceipts, raws, certified(wrongReceipts))).rejects.toThrow(
            /receipt root mismatch/,
          );
          await expect(target.importBlock(block, raws.slice(1), commit)).rejects.toThrow(/transaction count/);
          const otherProposer = devnetKey('account', 3);
          const strangerHeader = {
            ...headerOf(block),
            proposer: otherProposer.address,
            proposerKey: `0x${Buffer.from(otherProposer.publicKey).toString('hex')}` as Hex,
          };
          const byStranger = { ...signHeader(strangerHeader, otherProposer), transactions: block.transactions };
          await expect(target.importBlock(byStranger, raws, certified(byStranger))).rejects.toThrow(
            /not the chain validator/,
          );
          // Not final: a certificate of another block, or precommits of a key outside the set, and the block is never executed.
          await expect(target.importBlock(block, raws, (await source.getCommit(height - 1))!)).rejects.toThrow(
            /its commit certificate: the certificate is for block/,
          );
          await expect(
            target.importBlock(block, raws, signedCommit(block.chainId, block, otherProposer)),
          ).rejects.toThrow(/its commit certificate: .* is not in the validator set/);
          // The parent's certificate it carries must hold too.
          const badParentCommit = resign(block, {
            lastCommit: signedCommit(block.chainId, { height: height - 1, hash: `0x${'ef'.repeat(32)}` }),
          });
          await expect(target.importBlock(badParentCommit, raws, certified(badParentCommit))).rejects.toThrow(
            /the certificate of its parent it carries: the certificate is for block/,
          );
          const noParentCommit = resign(block, { lastCommit: null });
          await expect(target.importBlock(noParentCommit, raws, certified(noParentCommit))).rejects.toThrow(
            /carries no certificate of its parent/,
          );
          // None of that changed the follower.
          expect(target.head.height).toBe(height - 1);
        }
        expect(block.lastCommit === null).toBe(height === 1);
        const imported = await target.importBlock(block, raws, commit);
        expect(imported.hash).toBe(block.hash);
        expect(target.state.root()).toBe(block.stateRoot);
      }
      expect(forgedChecked).toBe(true);
      expect(order).toEqual(
        Array.from({ length: upTo }, (_, i) => [`decided ${i + 1} over head ${i}`, `block ${i + 1}`]).flat(),
      );
      // The block that moved account 0's funds: the decided state has them moved, the committed one not yet.
      const moved = decidedReads.find(
        ({ fresh, committed }) => Buffer.compare(Buffer.from(fresh ?? []), Buffer.from(committed ?? [])) !== 0,
      );
      expect(moved).toBeDefined();
      expect(Buffer.from(moved!.fresh!).toString('hex')).toBe(
        Buffer.from((await source.stateAt(moved!.height)(sender))!).toString('hex'),
      );
      const skip = await blockWithTransactions(source, 1);
      await expect(target.importBlock(skip.block, skip.raws, (await source.getCommit(1))!)).rejects.toThrow(
        /does not extend head/,
      );
    } finally {
      await follower.stop();
    }
  });

  it("judges a block's proposer only when it is the block after the head: one further ahead waits for its import", async () => {
    const follower = await startTestNode({ storage: 'memory', role: 'full' });
    try {
      const { block } = await blockWithTransactions(chainOf(validator), 3);
      const stranger = devnetKey('account', 3);
      const byStranger = (height: number): Block => ({
        ...signHeader(
          {
            ...headerOf(block),
            height,
            proposer: stranger.address,
            proposerKey: `0x${Buffer.from(stranger.publicKey).toString('hex')}` as Hex,
          },
          stranger,
        ),
        transactions: block.transactions,
      });
      // The set in force then may not be the one the follower knows now (it changes at epoch ends).
      expect(chainOf(follower).headerProblem(byStranger(3))).toBeUndefined();
      expect(chainOf(follower).headerProblem(byStranger(1))).toMatch(/not the chain validator/);
    } finally {
      await follower.stop();
    }
  });

  it('serves each block\'s commit certificate; "finalized" is the head and "earliest" block 0', async () => {
    const client = new SvcClient(validator.url);
    const head = await client.getBlockByNumber('latest');
    const commit = await client.getCommit(head.height);
    expect(commit).toMatchObject({
      height: head.height,
      round: 0,
      blockHash: head.hash,
      signatures: [{ validator: head.proposer }],
    });
    expect((await client.getBlockByNumber('finalized')).height).toBeGreaterThanOrEqual(head.height);
    expect((await client.getBlockByNumber('earliest')).height).toBe(0);
    expect((await client.getBalance(devnetKey('account', 0).address, 'earliest')).blockNumber).toBe(0);
    expect((await client.getCommit(1)).blockHash).toBe((await client.getBlockByNumber(1)).hash);
    // The next block carries it.
    expect((await client.getBlockByNumber(2)).lastCommit).toEqual(await client.getCommit(1));
    await expect(client.getCommit(0)).rejects.toMatchObject({
      message: 'not_found',
      data: { reason: expect.stringMatching(/final by definition/) },
    });
    await expect(client.getCommit(head.height + 1000)).rejects.toMatchObject({ message: 'not_found' });
    const observer = await new SvcClient(validator.url).consensusState();
    expect(observer).toMatchObject({
      mode: 'producing',
      height: expect.any(Number),
      lastCommit: { signers: 1, signedPower: '20', totalPower: '20' },
    });
  });

  it('a node restarted from its data dir recomputes the same state root', async () => {
    const dataDir = tempDir();
    let node = await startTestNode({ dataDir, validator: { blockTime: 50 } });
    const client = new SvcClient(node.url);
    const tx = await client.transfer(devnetKey('account', 4), devnetKey('account', 5).address, 'OGT', 7n);
    await client.waitForTransaction(tx.hash, { pollMs: 20 });
    await node.stop();
    const stopped = chainOf(node);
    const { head } = stopped;
    node = await startTestNode({ dataDir, validator: { blockTime: 60_000 } });
    try {
      const reopened = chainOf(node);
      await waitFor(
        () => reopened.head.height,
        (h) => h >= head.height,
        5000,
        'head loaded',
      );
      const stored = (await reopened.getBlock(head.height))!;
      expect(stored.stateRoot).toBe(head.stateRoot);
      // The world state was rebuilt from disk and its root checked against the head at open.
      expect(reopened.state.root()).toBe(reopened.head.stateRoot);
    } finally {
      await node.stop();
    }
  });
});
