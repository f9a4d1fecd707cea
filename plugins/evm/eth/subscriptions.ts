import Type from 'typebox';
import type { SubscriptionFactory, SubscriptionKind } from '../../../kernel/plugin.js';
import { ETHEREUM_KIND } from '../../../chain/ethereum-envelope.js';
import type { EvmPlugin } from '../plugin-service.js';
import { entryOf, ethLogs } from './block-index.js';
import { logMatches } from './api.js';
import { blockView, logView } from './views.js';

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const Topic = Type.Union([
  Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }),
  Type.Null(),
  Type.Array(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
]);

/**
 * `eth_subscribe` kinds over WebSocket, notified as `eth_subscription`: `newHeads` (each committed
 * block's header), `logs` (`{ address?, topics? }`: logs of committed blocks as they come) and
 * `newPendingTransactions` (hashes of Ethereum transactions entering the mempool).
 */
export function ethSubscriptions(kind: SubscriptionFactory<EvmPlugin>): SubscriptionKind[] {
  return [
    kind({
      kind: 'newHeads',
      namespace: 'eth',
      summary: 'the header of every committed block',
      start: (sink, _options, service, events) =>
        events.on('chain:block', ({ block, receipts }) => {
          const { transactions: _omitted, ...header } = blockView(
            block,
            entryOf(receipts) ?? { transactions: [], gas: [], logs: [] },
            service.rules.params,
            [],
          );
          sink.send(header);
        }),
    }),
    kind({
      kind: 'logs',
      namespace: 'eth',
      summary: 'logs of committed blocks that match { address?, topics? }',
      options: Type.Object(
        {
          address: Type.Optional(Type.Union([Address, Type.Array(Address)])),
          topics: Type.Optional(Type.Array(Topic, { maxItems: 4 })),
        },
        { additionalProperties: false },
      ),
      start: (sink, options, _service, events) =>
        events.on('chain:block', ({ block, receipts }) => {
          const entry = entryOf(receipts);
          if (!entry) return;
          ethLogs(entry).forEach((log, i) => {
            if (logMatches(log, options ?? {}))
              sink.send(logView(log, i, { hash: block.hash, height: block.height }, entry.transactions[log[0]]!));
          });
        }),
    }),
    kind({
      kind: 'newPendingTransactions',
      namespace: 'eth',
      summary: 'the hash of every Ethereum transaction that enters the mempool',
      start: (sink, _options, _service, events) =>
        events.on('chain:pendingTransaction', ({ hash, kind: txKind }) => {
          if (txKind === ETHEREUM_KIND) sink.send(hash);
        }),
    }),
  ];
}
