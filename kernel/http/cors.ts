import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOW_HEADERS = 'content-type, authorization, x-svc-nonce';
const EXPOSE_HEADERS =
  'x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-svc-burst-remaining, retry-after';

/** Which browser origins may call the node: `*`, or a list. Empty: no cross-origin access. */
export class CorsPolicy {
  private readonly any: boolean;
  private readonly origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.any = origins.includes('*');
    this.origins = new Set(origins);
  }

  allows(origin: string | undefined): boolean {
    return origin !== undefined && (this.any || this.origins.has(origin));
  }

  /** Headers for a response to `origin` (none when it is not allowed). */
  headers(origin: string | undefined): Record<string, string> {
    if (!this.allows(origin)) return {};
    return {
      'access-control-allow-origin': this.any ? '*' : origin!,
      'access-control-expose-headers': EXPOSE_HEADERS,
      ...(this.any ? {} : { vary: 'origin' }),
    };
  }

  /** Answers a preflight; false when the request is not one this policy allows (the caller answers it). */
  preflight(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    if (req.method !== 'OPTIONS' || !this.allows(origin)) return false;
    res.writeHead(204, {
      ...this.headers(origin),
      'access-control-allow-methods': 'POST, GET, OPTIONS',
      'access-control-allow-headers': ALLOW_HEADERS,
      'access-control-max-age': '600',
    });
    res.end();
    return true;
  }
}
