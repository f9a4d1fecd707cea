import { definePlugin } from '../kernel/plugin.js';
import { loadOrCreateNodeKeys, type NodeKeys } from './node-keys.js';
import type { DevnetIdentity } from './devnet-identity.js';

declare module '../kernel/plugin.js' {
  interface SvcCapabilities {
    /** The data dir's keys: the libp2p identity, and the operator keys this node holds (its own and imported ones). */
    keys: NodeKeys;
  }
}

/**
 * The data dir's keys as a capability: the peer key for the network, and the operator keys for
 * plugins that sign on an operator's behalf (registrations, bonds). Always loaded, first: it reads
 * (or creates) them when the node starts, after the data dir is locked.
 */
export function keystorePlugin(passphrase: () => string | undefined, identity?: () => DevnetIdentity) {
  return definePlugin({
    name: 'keystore',
    version: '1.0.0',
    description:
      "the data dir's keys: the peer key (keys/p2p.key), this node's operator key (keys/operator.json) and imported ones (keys/operators/)",
    provides: ['keys'],
    async init(ctx) {
      const keys = await loadOrCreateNodeKeys(ctx.node.dataDir, passphrase(), identity?.());
      ctx.log.info(
        {
          peerId: keys.peerId,
          operator: keys.operator.address,
          operators: keys.operators.addresses.length,
          dataDir: ctx.node.dataDir,
        },
        'node keys loaded',
      );
      return keys;
    },
  });
}
