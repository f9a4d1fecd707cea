import type { PeerId, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { lpStream } from '@libp2p/utils';
import type { SvcLibp2p } from './network.js';

/**
 * Peer exchange (CometBFT's PEX, small): a node asks a connected peer which peers it is connected
 * to, with the listen addresses identify told it, and dials those it lacks. Nodes that share only a
 * bootstrap peer find each other, so the network does not fall apart when that peer goes.
 * Response: JSON `[[peerId, [multiaddr, ...]], ...]`.
 */
export const PEER_EXCHANGE_PROTOCOL = '/svc/peer-exchange/1.0.0';
const MAX_PEERS = 32;
const MAX_ADDRESSES = 8;
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Answering side: this node's connected peers and their known addresses. */
export async function answerPeerExchange(
  network: SvcLibp2p,
  stream: Stream,
  asker: string,
  signal: AbortSignal,
): Promise<void> {
  const lp = lpStream(stream, { maxDataLength: MAX_RESPONSE_BYTES });
  const peers: [string, string[]][] = [];
  for (const peer of network.getPeers()) {
    if (peers.length >= MAX_PEERS) break;
    try {
      const known = await network.peerStore.get(peer);
      const addresses = known.addresses.map((a) => a.multiaddr.toString()).slice(0, MAX_ADDRESSES);
      if (addresses.length > 0 && peer.toString() !== asker) peers.push([peer.toString(), addresses]);
    } catch {
      // Not in the peer store (yet): nothing to tell.
    }
  }
  await lp.write(new TextEncoder().encode(JSON.stringify(peers)), { signal });
  await stream.close().catch(() => undefined);
}

/** Asking side: the peers `via` knows, merged into the peer store; returns those this node is not connected to. */
export async function exchangePeers(network: SvcLibp2p, via: PeerId, signal: AbortSignal): Promise<PeerId[]> {
  const stream = await network.dialProtocol(via, PEER_EXCHANGE_PROTOCOL, { signal });
  let answer: unknown;
  try {
    const lp = lpStream(stream, { maxDataLength: MAX_RESPONSE_BYTES });
    answer = JSON.parse(new TextDecoder().decode((await lp.read({ signal })).subarray()));
    await stream.close().catch(() => undefined);
  } catch (error) {
    stream.abort(error as Error);
    throw error;
  }
  if (!Array.isArray(answer)) return [];
  const fresh: PeerId[] = [];
  for (const entry of answer.slice(0, MAX_PEERS) as unknown[]) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) continue;
    try {
      const peer = peerIdFromString(entry[0]);
      if (peer.equals(network.peerId) || network.getConnections(peer).length > 0) continue;
      const addresses = (entry[1] as unknown[])
        .filter((a): a is string => typeof a === 'string')
        .slice(0, MAX_ADDRESSES)
        .map((a) => multiaddr(a));
      if (addresses.length === 0) continue;
      await network.peerStore.merge(peer, { multiaddrs: addresses });
      fresh.push(peer);
    } catch {
      // A malformed entry: skipped.
    }
  }
  return fresh;
}
