import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';

/** What is wrong with a bootstrap peer's multiaddr beyond its shape (checked by the config schema), or undefined. */
export function bootstrapAddressProblem(address: string): string | undefined {
  try {
    multiaddr(address);
  } catch (error) {
    return `is not a valid multiaddr (${(error as Error).message})`;
  }
  try {
    peerIdFromString(address.slice(address.lastIndexOf('/p2p/') + 5));
  } catch {
    return 'does not end in a valid peer id';
  }
  return undefined;
}
