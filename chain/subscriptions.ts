import Type from 'typebox';
import { addressPattern, normalizeAddress } from '../sdk/address.js';
import { domainError } from '../sdk/errors.js';
import type { SubscriptionFactory, SubscriptionKind } from '../kernel/plugin.js';
import type { CommittedBlock } from './contract.js';
import type { Chain } from './chain.js';

/** Most blocks a `newHeads` subscription may ask to replay. */
export const MAX_REPLAY = 100_000;

/** What `newHeads` sends for each block: the header, its hash, and how many transactions it holds. */
export function headEvent(block: CommittedBlock) {
  return {
    height: block.height,
    hash: block.hash,
    parentHash: block.parentHash,
    timestamp: block.timestamp,
    chainId: block.chainId,
    proposer: block.proposer,
    txRoot: block.txRoot,
    stateRoot: block.stateRoot,
    receiptRoot: block.receiptRoot,
    transactionCount: block.transactions.length,
  };
}

/** The chain's subscription kinds: heads (resumable), pending transactions, receipts. */
export function chainSubscriptions(kind: SubscriptionFactory<Chain>): SubscriptionKind[] {
  return [
    kind({
      kind: 'newHeads',
      summary:
        'every new block header; with `fromBlock`, first the stored heads from there, then live ones with no gap and no repeat',
      options: Type.Object({ fromBlock: Type.Optional(Type.Integer({ minimum: 0 })) }, { additionalProperties: false }),
      start(sink, options, chain, events) {
        const from = options?.fromBlock;
        let lastSent = from === undefined ? chain.head.height : from - 1;
        if (from !== undefined && chain.head.height - from > MAX_REPLAY) {
          throw domainError(
            'invalid_params',
            `fromBlock ${from} is more than ${MAX_REPLAY} blocks behind the head (${chain.head.height})`,
            { field: 'options.fromBlock' },
          );
        }
        let replaying = from !== undefined;
        const held: CommittedBlock[] = [];
        const off = events.on('chain:block', ({ block }) => {
          if (replaying) held.push(block);
          else if (block.height > lastSent) {
            lastSent = block.height;
            sink.send(headEvent(block));
          }
        });
        if (replaying) {
          void (async () => {
            // Blocks committed while replaying are read from storage too; the held live ones then fill in only what is newer.
            while (!sink.closed && lastSent < chain.head.height) {
              const block = await chain.getBlock(lastSent + 1);
              if (!block) break;
              sink.send(headEvent(block));
              lastSent = block.height;
            }
            replaying = false;
            for (const block of held.splice(0)) {
              if (block.height > lastSent) {
                lastSent = block.height;
                sink.send(headEvent(block));
              }
            }
          })();
        }
        return off;
      },
    }),
    kind({
      kind: 'pendingTransactions',
      summary: 'each transaction entering the mempool: its hash, or the whole transaction with `full: true`',
      options: Type.Object({ full: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      start(sink, options, _chain, events) {
        return events.on('chain:pendingTransaction', (event) => {
          if (!options?.full) return sink.send(event.hash);
          const tx = event.transaction;
          sink.send({
            hash: tx.hash,
            from: tx.from,
            kind: tx.kind,
            nonce: tx.nonce,
            chainId: tx.chainId,
            payload: tx.payload,
          });
        });
      },
    }),
    kind({
      kind: 'receipts',
      summary: 'receipts of newly mined transactions; with `address`, only those it sent or that pay it',
      options: Type.Object(
        { address: Type.Optional(Type.String({ pattern: addressPattern })) },
        { additionalProperties: false },
      ),
      start(sink, options, chain, events) {
        const address = options?.address ? normalizeAddress(options.address) : undefined;
        return events.on('chain:block', async ({ receipts }) => {
          for (const receipt of receipts) {
            if (address && receipt.from !== address) {
              const found = await chain.getTransaction(receipt.transactionHash);
              const to = (found?.tx.payload as { to?: unknown } | undefined)?.to;
              if (typeof to !== 'string' || to.toLowerCase() !== address) continue;
            }
            sink.send(receipt);
          }
        });
      },
    }),
  ];
}
