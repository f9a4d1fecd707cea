import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  devnetKey,
  generateKeyPair,
  RpcError,
  signTransaction,
  SvcClient,
  transferPayload,
  UNIT,
} from '../../sdk/index.js';
import { startTestNode, tempDir, waitFor } from '../helpers/test-node.js';
import { encodeRecord, readJournal } from '../../chain/tx-journal.js';
import { encodeSigned } from '../../sdk/transaction.js';

const JOURNAL = 'pending-transactions.journal';
/** A validator that makes block 1 and then none for an hour: what it acknowledges stays pending. */
const STALLED = { validator: { blockTime: 3_600_000 } };

const transfer = (nonce: number, i = 0) =>
  signTransaction(
    {
      chainId: 'svc-devnet-1',
      kind: 'transfer',
      nonce,
      payload: transferPayload(generateKeyPair().address, 'OMC', UNIT + BigInt(i)),
    },
    devnetKey('account', 0),
  );

describe('replaying the journal at start', () => {
  it('takes acknowledged transactions back after a stop; a journal of mined ones (and a torn record) replays none of them again', async () => {
    const dataDir = tempDir('svc-journal-replay-');
    const first = await startTestNode({ dataDir, ...STALLED });
    const client = new SvcClient(first.url);
    await waitFor(
      () => client.blockNumber(),
      (h) => h >= 1,
      15_000,
      'block 1',
    );
    const nonce = await client.getNonce(devnetKey('account', 0).address);
    const txs = [0, 1, 2].map((i) => transfer(nonce + i, i));
    for (const tx of txs) await client.sendTransaction(tx);
    const journalWhilePending = readFileSync(join(dataDir, JOURNAL));
    await first.stop();

    const second = await startTestNode({ dataDir, validator: { blockTime: 100 } });
    const again = new SvcClient(second.url);
    expect(second.logs.text()).toMatch(/journal: 3 acknowledged transactions pending again/);
    for (const tx of txs)
      await waitFor(
        () => again.getTransaction(tx.hash),
        (view) => view.status === 'mined',
        15_000,
        `${tx.hash} mined`,
      );
    await second.stop();

    // The journal as it was before they were mined, its last record torn by the crash that wrote it.
    writeFileSync(join(dataDir, JOURNAL), journalWhilePending);
    truncateSync(join(dataDir, JOURNAL), journalWhilePending.length - 20);
    const third = await startTestNode({ dataDir, ...STALLED });
    const after = new SvcClient(third.url);
    const text = third.logs.text();
    expect(text).toMatch(/torn or corrupt record/);
    expect(text).toMatch(/journal: 0 acknowledged transactions pending again \(2 mined before the stop/);
    expect((await after.chainInfo()).pendingTransactions).toBe(0);
    expect(await after.getNonce(devnetKey('account', 0).address)).toBe(nonce + 3);
    // Rewritten with what is pending: nothing.
    expect(statSync(join(dataDir, JOURNAL)).size).toBe(0);
    await third.stop();

    // Records older than the mempool keeps a transaction: the mined ones are counted as mined, not as
    // expired; only one never mined has expired.
    const hourAgo = Date.now() - 3_600_000;
    const never = transfer(nonce + 10);
    const aged = [...readJournal(journalWhilePending).records.map((record) => record.raw), encodeSigned(never)].map(
      (raw) => encodeRecord(hourAgo, raw),
    );
    writeFileSync(join(dataDir, JOURNAL), Buffer.concat(aged));
    const fourth = await startTestNode({ dataDir, ...STALLED });
    expect(fourth.logs.text()).toMatch(
      /journal: 0 acknowledged transactions pending again \(3 mined before the stop, 0 whose nonce another transaction took, 1 expired, 0 no longer valid\)/,
    );
    await fourth.stop();
  }, 60_000);

  it('refuses a submission past the journal bound with mempool_full and changes nothing', async () => {
    const node = await startTestNode({ ...STALLED, chain: { txJournalMaxBytes: 4096 } });
    try {
      const client = new SvcClient(node.url);
      await waitFor(
        () => client.blockNumber(),
        (h) => h >= 1,
        15_000,
        'block 1',
      );
      const nonce = await client.getNonce(devnetKey('account', 0).address);
      let refused: RpcError | undefined;
      let admitted = 0;
      for (let i = 0; i < 100 && !refused; i++) {
        const tx = transfer(nonce + i, i);
        try {
          await client.sendTransaction(tx);
          admitted++;
        } catch (error) {
          if (!(error instanceof RpcError)) throw error;
          refused = error;
          await expect(client.getTransaction(tx.hash)).rejects.toThrow('not_found');
        }
      }
      expect(refused?.message).toBe('mempool_full');
      expect(String(refused?.data?.reason)).toMatch(/journal of pending transactions holds/);
      expect(refused?.code).toBe(-32077);
      expect(admitted).toBeGreaterThan(5);
      expect((await client.chainInfo()).pendingTransactions).toBe(admitted);
    } finally {
      await node.stop();
    }
  }, 30_000);

  it('writes nothing under the data dir of a throw-away node (storage memory): no journal, keys, objects or lock', async () => {
    const dataDir = tempDir('svc-journal-memory-');
    const node = await startTestNode({ dataDir, storage: 'memory', ...STALLED });
    const scratch = node.node.settings.dataDir;
    try {
      const client = new SvcClient(node.url);
      await client.sendTransaction(transfer(await client.getNonce(devnetKey('account', 0).address)));
      expect(existsSync(join(dataDir, JOURNAL))).toBe(false);
      expect(readdirSync(dataDir)).toEqual([]);
      expect(scratch).not.toBe(dataDir);
    } finally {
      await node.stop();
    }
    // Its own working dir (keys, the lock) is gone with it.
    expect(existsSync(scratch)).toBe(false);
  }, 30_000);
});
