import './promise-with-resolvers.js';
import { bootstrap } from '@libp2p/bootstrap';
import { gossipsub, type GossipSub } from '@libp2p/gossipsub';
import { identify } from '@libp2p/identify';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { noise } from '@libp2p/noise';
import { tcp } from '@libp2p/tcp';
import { yamux } from '@libp2p/yamux';
import { createLibp2p, type Libp2p } from 'libp2p';
import { hash } from 'node:crypto';

export type SvcLibp2p = Libp2p<{ identify: ReturnType<ReturnType<typeof identify>>; pubsub: GossipSub }>;

export interface NetworkOptions {
  readonly privateKey: PrivateKey;
  readonly host: string;
  readonly port: number;
  readonly bootstrapPeers: readonly string[];
  /** Peers this node refuses to talk to (another network, misbehaviour, the operator denies them). */
  readonly refuses: (peer: PeerId) => boolean;
  readonly maxConnections: number;
}

/**
 * The node's libp2p host: TCP, Noise, Yamux, identify, bootstrap and gossipsub.
 * Gossip message ids are the SHA-256 of the content, so the same block or transaction published by
 * two nodes is one message, and nothing is signed twice (blocks and transactions carry their own
 * signatures).
 */
export async function createNetwork(options: NetworkOptions): Promise<SvcLibp2p> {
  const host = options.host.includes(':') ? `/ip6/${options.host}` : `/ip4/${options.host}`;
  return createLibp2p({
    privateKey: options.privateKey,
    start: false,
    addresses: { listen: [`${host}/tcp/${options.port}`] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    peerDiscovery:
      options.bootstrapPeers.length > 0 ? [bootstrap({ list: [...options.bootstrapPeers], timeout: 0 })] : [],
    connectionManager: { maxConnections: options.maxConnections },
    connectionGater: {
      // Devnets live on private and loopback addresses; the default gater would refuse to dial them.
      denyDialMultiaddr: () => false,
      denyDialPeer: (peer) => options.refuses(peer),
      denyInboundEncryptedConnection: (peer) => options.refuses(peer),
    },
    services: {
      identify: identify(),
      pubsub: gossipsub({
        globalSignaturePolicy: 'StrictNoSign',
        msgIdFn: (message) => hash('sha256', message.data, 'buffer'),
        allowPublishToZeroTopicPeers: true,
        emitSelf: false,
        asyncValidation: false,
        maxInboundDataLength: 2 * 1024 * 1024,
      }),
    },
  });
}
