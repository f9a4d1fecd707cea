import { BlockList, isIP } from 'node:net';

/** Strips the IPv4-mapped IPv6 prefix so one client has one key (`::ffff:1.2.3.4` -> `1.2.3.4`). */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * Who the client is: the TCP remote address, unless that is a trusted proxy, then the right-most address
 * in X-Forwarded-For that is not a trusted proxy. Without trusted proxies the header is ignored, so
 * a client cannot pick its own rate-limit key.
 */
export class ClientAddressResolver {
  private readonly trusted = new BlockList();
  private readonly any: boolean;

  constructor(trustedProxies: readonly string[]) {
    for (const entry of trustedProxies) {
      const [address, prefix] = entry.split('/');
      const family = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.trusted.addAddress(address!, family);
      else this.trusted.addSubnet(address!, Number(prefix), family);
    }
    this.any = trustedProxies.length > 0;
  }

  private isTrusted(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }

  resolve(remoteAddress: string, forwardedFor: string | string[] | undefined): string {
    const remote = plainAddress(remoteAddress);
    if (!this.any || !this.isTrusted(remote) || forwardedFor === undefined) return remote;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((h) => plainAddress(h.trim()))
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) if (!this.isTrusted(hops[i]!)) return hops[i]!;
    return hops[0] ?? remote;
  }
}
