import { describe, expect, it } from 'vitest';
import {
  devnetKey,
  generateKeyPair,
  RpcError,
  signTransaction,
  SvcClient,
  transferPayload,
  UNIT,
  type Address,
} from '../../sdk/index.js';
import { startNodeProcess } from '../helpers/cli.js';
import { tempDir, waitFor } from '../helpers/test-node.js';

const KILLS = 20;
/** Acknowledgements a run waits for before it kills the node, right after the last of them. */
const ACKS_PER_RUN = 12;

describe('journal of acknowledged transactions, across SIGKILL', () => {
  it(`a validator SIGKILLed right after acknowledging, ${KILLS} times in a row with submissions in flight: every acknowledged transaction is mined after the restart, none twice`, async () => {
    const dataDir = tempDir('svc-journal-kill-');
    // Blocks slower than a run: what is acknowledged is still pending when the node dies.
    const args = ['--role', 'validator', '--data-dir', dataDir, '--bind', '127.0.0.1:0', '--block-time', '2000'];
    const senders = [0, 1, 2, 3, 4].map((i) => devnetKey('account', i));
    const to: Address = generateKeyPair().address;
    const acknowledged = new Set<string>();
    let amounts = 0n;
    for (let run = 0; run < KILLS; run++) {
      const node = await startNodeProcess(args);
      const client = new SvcClient(node.url);
      // The nonces the node knows, pending (replayed from the journal) counted.
      const nonces = await Promise.all(senders.map((key) => client.getNonce(key.address)));
      let acks = 0;
      let killed = false;
      const exited = new Promise<void>((resolve) => node.child.once('exit', () => resolve()));
      // Each sender submits one transfer after another: five in flight whenever the node dies.
      const streams = senders.map(async (key, i) => {
        while (!killed) {
          const amount = UNIT + BigInt(run * 1000 + acks);
          const tx = signTransaction(
            {
              chainId: 'svc-devnet-1',
              kind: 'transfer',
              nonce: nonces[i]!,
              payload: transferPayload(to, 'OMC', amount),
            },
            key,
          );
          try {
            await client.sendTransaction(tx);
          } catch (error) {
            if (killed) return;
            if (error instanceof RpcError)
              throw new Error(`run ${run}: ${key.address} nonce ${nonces[i]} refused: ${error.message}`);
            throw error;
          }
          if (killed) {
            // Answered in the instant of the kill: acknowledged all the same.
            acknowledged.add(tx.hash);
            amounts += amount;
            return;
          }
          acknowledged.add(tx.hash);
          amounts += amount;
          nonces[i]!++;
          if (++acks === ACKS_PER_RUN) {
            killed = true;
            node.child.kill('SIGKILL');
          }
        }
      });
      await Promise.all(streams.map((s) => s.catch((error: unknown) => (killed ? undefined : Promise.reject(error)))));
      await exited;
    }

    const last = await startNodeProcess(args);
    try {
      const client = new SvcClient(last.url);
      const hashes = [...acknowledged];
      await waitFor(
        async () =>
          (await Promise.all(hashes.map((hash) => client.getTransaction(hash)))).filter((tx) => tx.status === 'mined')
            .length,
        (mined) => mined === hashes.length,
        60_000,
        `all ${hashes.length} acknowledged transactions mined`,
      );
      // None twice: each acknowledged hash is listed by exactly one block.
      const head = await client.blockNumber();
      const listed = new Map<string, number>();
      for (let height = 1; height <= head; height++)
        for (const hash of (await client.getBlockByNumber(height)).transactions)
          listed.set(hash, (listed.get(hash) ?? 0) + 1);
      expect(hashes.filter((hash) => listed.get(hash) !== 1)).toEqual([]);
      const receipts = await Promise.all(hashes.map((hash) => client.getTransactionReceipt(hash)));
      expect(receipts.filter((r) => r.status !== 'success')).toEqual([]);
      // The recipient holds at least what was acknowledged (a transfer answered by nobody in the kill may be mined too).
      expect((await client.getBalance(to)).omc).toBeGreaterThanOrEqual(amounts);
      expect(hashes.length).toBeGreaterThanOrEqual(KILLS * ACKS_PER_RUN);
    } finally {
      expect(await last.stop()).toBe(0);
    }
  }, 240_000);
});
