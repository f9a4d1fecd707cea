import Type from 'typebox';
import { definePlugin } from '../kernel/plugin.js';
import { BLOCK_PRODUCER } from '../chain/capabilities.js';
import { P2pService, type P2pSettings } from './service.js';
import type { SyncStatus } from './sync-status.js';

declare module '../kernel/plugin.js' {
  interface SvcCapabilities {
    p2p: P2pService;
    'sync-status': SyncStatus;
  }
  interface SvcEvents {
    /** The number of connected peers changed (or was re-counted). */
    'p2p:peers': { peers: number };
    /** A gossip message was received or published. */
    'p2p:gossip': { direction: 'in' | 'out' };
    /** A block from a peer was verified and committed. */
    'p2p:imported': { height: number; source: 'sync' | 'gossip' };
    /** The node became synced, or stopped being synced. */
    'p2p:syncStatus': { synced: boolean; currentBlock: number; highestBlock: number };
  }
}

const HeadSchema = Type.Object(
  { height: Type.Integer({ minimum: 0 }), hash: Type.String() },
  { additionalProperties: false },
);
const PeerSchema = Type.Object(
  {
    peerId: Type.String(),
    addresses: Type.Array(Type.String(), { description: 'multiaddrs of the open connections' }),
    direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
    head: Type.Union([HeadSchema, Type.Null()], { description: 'the head it last announced' }),
  },
  { additionalProperties: false },
);
const SyncingSchema = Type.Union([
  Type.Literal(false),
  Type.Object(
    {
      startingBlock: Type.Integer({ minimum: 0 }),
      currentBlock: Type.Integer({ minimum: 0 }),
      highestBlock: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
]);

/**
 * The peer-to-peer network: libp2p peering, status exchange, range sync and gossip of
 * blocks and transactions. Always loaded; the composition root hands it the p2p settings, the keystore its peer key.
 */
export function p2pPlugin(settings: P2pSettings) {
  return definePlugin({
    name: 'p2p',
    version: '1.0.0',
    description:
      'libp2p peering (TCP, Noise, Yamux, identify, bootstrap, gossipsub), range sync, block and transaction gossip',
    requires: ['block-import', 'keys'],
    provides: ['p2p', 'sync-status'],
    events: {
      'p2p:peers': 'the number of connected peers changed',
      'p2p:gossip': 'a gossip message was received or published',
      'p2p:imported': 'a block from a peer was verified and committed',
      'p2p:syncStatus': 'the node became synced or stopped being synced',
    },
    init: (ctx) => {
      const keys = ctx.use('keys');
      const producer = ctx.plugins.some((entry) => (entry.definition.provides ?? []).includes(BLOCK_PRODUCER));
      return new P2pService(ctx.use('block-import'), () => keys.peerKey, settings, ctx.events, ctx.log, producer);
    },
    start: (p2p) => p2p.start(),
    stop: (p2p) => p2p.stop(),
    notReady: (p2p) => (p2p.synced ? undefined : 'syncing'),
    health: (p2p) => p2p.health(),
    subscriptions: (kind) => [
      kind({
        kind: 'syncStatus',
        summary: 'whether the node is synced and its head: now, then whenever it changes',
        start(sink, _options, p2p, events) {
          let last: boolean | undefined;
          const report = (): void => {
            const synced = p2p.synced;
            if (synced === last) return;
            last = synced;
            sink.send({ synced, currentBlock: p2p.headHeight });
          };
          report();
          const offBlock = events.on('chain:block', report);
          const offStatus = events.on('p2p:syncStatus', report);
          return () => {
            offBlock();
            offStatus();
          };
        },
      }),
    ],
    rpc: (method) => [
      method({
        name: 'svc_peers',
        summary: 'Connected peers: peer id, connection addresses, direction, and the head each announced.',
        params: [],
        result: Type.Array(PeerSchema),
        handler: (_params, { service }) => service.peerList(),
      }),
      method({
        name: 'svc_syncing',
        summary:
          'false when synced (head within 2 blocks of the best head peers announce); else { startingBlock, currentBlock, highestBlock }.',
        params: [],
        result: SyncingSchema,
        handler: (_params, { service }) => service.syncing(),
      }),
    ],
  });
}
