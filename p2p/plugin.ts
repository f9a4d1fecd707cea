import Type from 'typebox';
import { definePlugin } from '../kernel/plugin.js';
import { P2pService, type P2pSettings } from './service.js';

declare module '../kernel/plugin.js' {
  interface SvcCapabilities {
    p2p: P2pService;
  }
  interface SvcEvents {
    /** The number of connected peers changed (or was re-counted). */
    'p2p:peers': { peers: number };
    /** A gossip message was received or published. */
    'p2p:gossip': { direction: 'in' | 'out' };
    /** A block from a peer was verified and committed. */
    'p2p:imported': { height: number; source: 'sync' | 'gossip' };
  }
}

const HeadSchema = Type.Object({ height: Type.Integer({ minimum: 0 }), hash: Type.String() }, { additionalProperties: false });
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
  Type.Object({ startingBlock: Type.Integer({ minimum: 0 }), currentBlock: Type.Integer({ minimum: 0 }), highestBlock: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
]);

/**
 * The peer-to-peer network: libp2p peering, status exchange, range sync and gossip of
 * blocks and transactions. Always loaded; the composition root hands it the p2p settings, the keystore its peer key.
 */
export function p2pPlugin(settings: P2pSettings) {
  return definePlugin({
    name: 'p2p',
    version: '1.0.0',
    description: 'libp2p peering (TCP, Noise, Yamux, identify, bootstrap, gossipsub), range sync, block and transaction gossip',
    requires: ['chain', 'keys'],
    provides: ['p2p'],
    events: {
      'p2p:peers': 'the number of connected peers changed',
      'p2p:gossip': 'a gossip message was received or published',
      'p2p:imported': 'a block from a peer was verified and committed',
    },
    init: (ctx) => {
      const keys = ctx.use('keys');
      return new P2pService(ctx.use('chain'), () => keys.peerKey, settings, ctx.events, ctx.log);
    },
    start: (p2p) => p2p.start(),
    stop: (p2p) => p2p.stop(),
    health: (p2p) => p2p.health(),
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
        summary: 'false when synced (head within 2 blocks of the best head peers announce); else { startingBlock, currentBlock, highestBlock }.',
        params: [],
        result: SyncingSchema,
        handler: (_params, { service }) => service.syncing(),
      }),
    ],
  });
}
