import { hash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface TokenSource {
  /** `SVC_RPC_TOKENS`: comma-separated. */
  readonly env?: string;
  /** One token per line; blank lines and `#` comments are ignored. */
  readonly file?: string;
}

function digest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/**
 * The accepted bearer tokens, held only as SHA-256 digests. A presented token is hashed and compared
 * with every digest in constant time; its identity (the principal) is a short digest prefix, so
 * logs, errors and metrics labels never carry a token.
 */
export class TokenSet {
  private readonly digests: { digest: Buffer; principal: string }[] = [];

  constructor(source: TokenSource) {
    const tokens = new Set<string>();
    for (const token of (source.env ?? '').split(',')) if (token.trim()) tokens.add(token.trim());
    if (source.file) {
      let text: string;
      try {
        text = readFileSync(source.file, 'utf8');
      } catch (error) {
        throw new Error(
          `auth.tokenFile ${source.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
      for (const line of text.split('\n')) {
        const token = line.trim();
        if (token && !token.startsWith('#')) tokens.add(token);
      }
    }
    for (const token of tokens) {
      if (token.length < 16) throw new Error('auth: every token must have at least 16 characters');
      const d = digest(token);
      this.digests.push({ digest: d, principal: `token:${d.subarray(0, 6).toString('hex')}` });
    }
  }

  get size(): number {
    return this.digests.length;
  }

  /** The principal of a valid token, else undefined. Compares against every token, in constant time each. */
  identify(token: string): string | undefined {
    const presented = digest(token);
    let found: string | undefined;
    for (const entry of this.digests) if (timingSafeEqual(entry.digest, presented)) found ??= entry.principal;
    return found;
  }
}
