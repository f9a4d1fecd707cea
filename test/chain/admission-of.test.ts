import { describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, signTransaction, transferPayload, UNIT, type KeyPair } from '../../sdk/index.js';
import { encodeSigned } from '../../sdk/transaction.js';
import type { Chain } from '../../chain/chain.js';
import { startTestNode } from '../helpers/test-node.js';

const to = generateKeyPair().address;
const senders = [devnetKey('account', 1), devnetKey('account', 2), devnetKey('account', 3)];
const PER_SENDER = 500;
const transferOf = (key: KeyPair, nonce: number, amount = UNIT) =>
  signTransaction(
    { chainId: 'svc-devnet-1', kind: 'transfer', nonce, payload: transferPayload(to, 'OMC', amount) },
    key,
  );
const flood = senders.flatMap((key) => Array.from({ length: PER_SENDER }, (_, nonce) => transferOf(key, nonce)));

describe('waiting for the transactions a proposal lacks', () => {
  it('ends once those are pending while a flood gossiped after them is still being admitted, and for a hash nobody sent once the flood is in', async () => {
    // A validator that makes block 1 and then none for an hour: what it admits stays pending.
    const node = await startTestNode({ validator: { blockTime: 3_600_000 } });
    try {
      const chain = node.node.service<Chain>('chain');
      let admitted = 0;
      const admissions = flood.map((tx) =>
        chain.submitRaw(encodeSigned(tx), { viaGossip: true }).then(() => {
          admitted++;
        }),
      );
      const lacked = [flood[3]!.hash, flood[PER_SENDER + 7]!.hash];
      await chain.admissionOf(lacked);
      for (const hash of lacked) expect(chain.pendingTransaction(hash)?.hash).toBe(hash);
      // The first of the worker's batches, not the whole flood.
      expect(admitted).toBeLessThan(flood.length / 2);

      // Not being admitted: the wait ends once everything being admitted when it began is in.
      const unknown = transferOf(generateKeyPair(), 0);
      await chain.admissionOf([unknown.hash]);
      expect(admitted).toBe(flood.length);
      await Promise.all(admissions);
      // Nothing lacked: no wait at all.
      await chain.admissionOf(lacked);
    } finally {
      await node.stop();
    }
  });

  it('ends for a lacked transaction the mempool refuses once decoded, not after the flood behind it', async () => {
    const node = await startTestNode({ validator: { blockTime: 3_600_000 } });
    try {
      const chain = node.node.service<Chain>('chain');
      const owner = devnetKey('account', 4);
      // Pending here first: a second transfer of that nonce (another amount) is refused once decoded.
      await chain.submitRaw(encodeSigned(transferOf(owner, 0)));
      const conflicting = transferOf(owner, 0, 2n * UNIT);
      const raws = flood.map((tx) => encodeSigned(tx));
      raws.splice(3, 0, encodeSigned(conflicting));
      let settled = 0;
      const admissions = raws.map((raw) =>
        chain.submitRaw(raw, { viaGossip: true }).then(
          () => void settled++,
          () => void settled++,
        ),
      );
      await chain.admissionOf([conflicting.hash]);
      expect(chain.pendingTransaction(conflicting.hash)).toBeUndefined();
      expect(settled).toBeLessThan(raws.length / 2);
      await Promise.all(admissions);
    } finally {
      await node.stop();
    }
  });
});
