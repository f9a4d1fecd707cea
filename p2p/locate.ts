import type { PeerId, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { lpStream } from '@libp2p/utils';
import type { SvcLibp2p } from './network.js';

/** Asks a peer for the addresses it knows of another peer (what identify told it). */
export const ADDRESSES_PROTOCOL = '/svc/peer-addresses/1.0.0';
const MAX_ADDRESSES_BYTES = 16 * 1024;

/** Answering side: the addresses this node's peer store holds for the peer asked about. */
export async function answerAddresses(network: SvcLibp2p, stream: Stream, signal: AbortSignal): Promise<void> {
  const lp = lpStream(stream, { maxDataLength: 256 });
  const asked = new TextDecoder().decode((await lp.read({ signal })).subarray());
  let addresses: string[] = [];
  try {
    const peer = await network.peerStore.get(peerIdFromString(asked));
    addresses = peer.addresses.map((a) => a.multiaddr.toString()).slice(0, 16);
  } catch {
    // Unknown peer (or not a peer id): no addresses.
  }
  await lp.write(new TextEncoder().encode(JSON.stringify(addresses)), { signal });
  await stream.close().catch(() => undefined);
}

async function askAddresses(network: SvcLibp2p, via: PeerId, target: string, signal: AbortSignal): Promise<string[]> {
  const stream = await network.dialProtocol(via, ADDRESSES_PROTOCOL, { signal });
  try {
    const lp = lpStream(stream, { maxDataLength: MAX_ADDRESSES_BYTES });
    await lp.write(new TextEncoder().encode(target), { signal });
    const answer = JSON.parse(new TextDecoder().decode((await lp.read({ signal })).subarray())) as unknown;
    await stream.close().catch(() => undefined);
    return Array.isArray(answer) ? answer.filter((a): a is string => typeof a === 'string') : [];
  } catch (error) {
    stream.abort(error as Error);
    throw error;
  }
}

/**
 * A stream to `target` on `protocol`. A peer this node is not connected to (nodes dial their
 * bootstrap peers and the peers exchange finds, not every node) is found by asking each connected
 * peer for the addresses it knows of it; they go into the peer store, and libp2p dials them.
 */
export async function openStreamTo(
  network: SvcLibp2p,
  target: string,
  protocol: string,
  signal: AbortSignal,
): Promise<Stream> {
  const peer = peerIdFromString(target);
  if (network.getConnections(peer).length === 0) {
    for (const via of network.getPeers()) {
      if (via.equals(peer)) continue;
      const addresses = await askAddresses(network, via, target, signal).catch(() => []);
      if (addresses.length === 0) continue;
      await network.peerStore.merge(peer, { multiaddrs: addresses.map((a) => multiaddr(a)) });
      break;
    }
  }
  return network.dialProtocol(peer, protocol, { signal });
}
