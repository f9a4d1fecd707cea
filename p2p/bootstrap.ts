import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import type { Logger } from '../kernel/log.js';
import type { SvcLibp2p } from './network.js';
import { timeoutSignal } from '../kernel/timeout-signal.js';

/** Bootstrap dials back off from the first delay up to the second. */
const DIAL_BACKOFF_MS = [250, 5_000] as const;
const DIAL_TIMEOUT_MS = 5_000;

/**
 * Dials each bootstrap peer until connected, backing off while it is not up, and again whenever it
 * drops; skips peers this node refuses. Runs until `signal` aborts.
 */
export async function keepBootstrapped(
  network: SvcLibp2p,
  addresses: readonly string[],
  isRefused: (peer: string) => boolean,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  const nextTry = new Map<string, { at: number; delay: number }>();
  while (!signal.aborted) {
    for (const address of addresses) {
      const peer = peerIdFromString(address.slice(address.lastIndexOf('/p2p/') + 5));
      if (network.getConnections(peer).length > 0 || isRefused(peer.toString())) continue;
      const due = nextTry.get(address);
      if (due && due.at > Date.now()) continue;
      try {
        await network.dial(multiaddr(address), {
          signal: timeoutSignal(DIAL_TIMEOUT_MS, signal),
        });
        nextTry.delete(address);
        log.info({ peer: peer.toString() }, 'connected to bootstrap peer');
      } catch (error) {
        if (signal.aborted) return;
        const delay = Math.min(DIAL_BACKOFF_MS[1], due ? due.delay * 2 : DIAL_BACKOFF_MS[0]);
        nextTry.set(address, { at: Date.now() + delay, delay });
        // Said at info while backing off, then quietly once at the longest delay.
        log[due && due.delay >= DIAL_BACKOFF_MS[1] ? 'debug' : 'info'](
          { address, retryInMs: delay, reason: (error as Error).message },
          'bootstrap peer not reachable yet',
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, DIAL_BACKOFF_MS[0]).unref());
  }
}
