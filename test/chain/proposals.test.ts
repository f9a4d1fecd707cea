import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, encodeSigned, signHeader, SvcClient, UNIT, type BlockHeader, type Hex } from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import type { Block } from '../../chain/schemas.js';
import { startTestNode, type TestNode } from '../helpers/test-node.js';
import { signedCommit } from '../helpers/commits.js';

// Two nodes that produce nothing on their own: the test builds proposals on one and checks them on
// the other, as consensus will (a block is executed when proposed or received, committed only when decided).
let a: TestNode;
let b: TestNode;
const key = devnetKey('validator', 0);
const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');

beforeAll(async () => {
  [a, b] = await Promise.all([
    startTestNode({ storage: 'memory', role: 'full' }),
    startTestNode({ storage: 'memory', role: 'full' }),
  ]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const rawsOf = async (chain: Chain, block: Block): Promise<Uint8Array[]> =>
  block.transactions.map((hash) => encodeSigned(chain.pendingTransaction(hash)!));

describe('proposals: executed, held, then committed or dropped', () => {
  let withTransfer: Block;
  let raws: Uint8Array[];

  it('holds a built proposal without committing it: the head and balances stay until it is committed', async () => {
    const client = new SvcClient(a.url);
    const to = devnetKey('account', 8).address;
    const before = await client.getBalance(to);
    const tx = await client.transfer(devnetKey('account', 1), to, 'OMC', 3n * UNIT);
    const chain = chainOf(a);
    const genesis = chain.head;
    withTransfer = await chain.proposeBlock(key, genesis.timestamp + 1000);
    expect(withTransfer.transactions).toEqual([tx.hash]);
    expect(chain.head.height).toBe(genesis.height);
    expect((await client.getBalance(to)).omc).toBe(before.omc);
    raws = await rawsOf(chain, withTransfer);
    // Dropped, then built again the same: the same block (the state it previewed was undone).
    await chain.discardProposal();
    expect((await chain.proposeBlock(key, genesis.timestamp + 1000)).hash).toBe(withTransfer.hash);
    await chain.discardProposal();
    expect(chain.head.height).toBe(genesis.height);
  });

  it("checks a peer's competing proposals at one height, holds the last, and commits only the one held", async () => {
    const chain = chainOf(b);
    const genesis = chain.head;
    const header = (block: Block): BlockHeader => ({
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
    });
    const forged = {
      ...signHeader({ ...header(withTransfer), stateRoot: `0x${'ab'.repeat(32)}` }, key),
      transactions: withTransfer.transactions,
    };
    await expect(chain.checkProposal(forged, raws)).rejects.toThrow(/state root mismatch/);
    await expect(chain.commitProposal(forged.hash, signedCommit(forged.chainId, forged))).rejects.toThrow(
      /no proposal .* is held \(none held\)/,
    );
    await chain.checkProposal(withTransfer, raws);
    // A competing proposal for the same height (the same transfer, a later time): another block.
    const other = await chainOf(a).proposeBlock(key, genesis.timestamp + 2000);
    await chainOf(a).discardProposal();
    expect(other.hash).not.toBe(withTransfer.hash);
    // Checking the other drops the first: its state is undone, so the other verifies against the parent's state.
    await chain.checkProposal(other, raws);
    await expect(
      chain.commitProposal(withTransfer.hash, signedCommit(withTransfer.chainId, withTransfer)),
    ).rejects.toThrow(/holding/);
    await chain.checkProposal(withTransfer, raws);
    // Decided only with a certificate of the set's power for it.
    await expect(
      chain.commitProposal(
        withTransfer.hash,
        signedCommit(withTransfer.chainId, withTransfer, devnetKey('account', 2)),
      ),
    ).rejects.toThrow(/commit certificate: .* is not in the validator set/);
    const certificate = signedCommit(withTransfer.chainId, withTransfer);
    const committed = await chain.commitProposal(withTransfer.hash, certificate);
    expect(await chain.getCommit(1)).toEqual(certificate);
    expect(committed.hash).toBe(withTransfer.hash);
    expect(chain.head.hash).toBe(withTransfer.hash);
    expect((await new SvcClient(b.url).getBlockByNumber(1)).stateRoot).toBe(withTransfer.stateRoot);
    // Writes are staged as a proposal is checked: only the decided block's are written, with its certificate.
    expect((await chain.getReceipt(withTransfer.transactions[0]!))?.blockHash).toBe(withTransfer.hash);
    expect(await chain.blockWithTransactions(1)).toMatchObject({
      block: { hash: withTransfer.hash },
      commit: certificate,
    });
  });

  it('commits a held proposal when the same block is imported, and drops it for another', async () => {
    const chain = chainOf(a);
    const proposal = await chain.proposeBlock(key, chain.head.timestamp + 1000);
    // The decided block arrives by import (a peer's commit): the held one is committed as it is.
    const imported = await chain.importBlock(
      proposal,
      await rawsOf(chain, proposal),
      signedCommit(proposal.chainId, proposal),
    );
    expect(imported.hash).toBe(proposal.hash);
    expect(chain.head.hash).toBe(proposal.hash);
    // Consensus deciding the same block after that import: checked and committed already, nothing to do (no error).
    expect((await chain.checkProposal(proposal, [])).hash).toBe(proposal.hash);
    expect((await chain.commitProposal(proposal.hash, signedCommit(proposal.chainId, proposal))).hash).toBe(
      proposal.hash,
    );
    expect(chain.head.hash).toBe(proposal.hash);
    const next = await chain.proposeBlock(key, chain.head.timestamp + 1000);
    const produced = await chain.produceBlock(key, chain.head.timestamp + 1500);
    expect(produced.height).toBe(next.height);
    expect(chain.head.hash).toBe(produced.hash);
    expect(produced.lastCommit).toEqual(await chain.getCommit(proposal.height));
    await expect(chain.commitProposal(next.hash, signedCommit(next.chainId, next))).rejects.toThrow(/no proposal/);
  });
});
