import Type from 'typebox';
import { domainError } from '../../sdk/errors.js';
import { definePlugin } from '../../kernel/plugin.js';
import { RateLimiter } from './limiter.js';

export default definePlugin({
  name: 'rate-limit',
  version: '1.0.0',
  description:
    'per-key rate limits (the bearer token, else the client address) with X-RateLimit-* headers; 429 past them',
  after: ['auth'],
  config: Type.Object(
    {
      limit: Type.Integer({
        minimum: 0,
        default: 0,
        description: 'calls per window per key (--rate-limit); 0 disables',
      }),
      windowSeconds: Type.Integer({ minimum: 1, default: 60, description: 'window length (--rate-limit-window)' }),
      burst: Type.Integer({ minimum: 0, default: 0, description: 'extra calls per window (--rate-limit-burst)' }),
      maxKeys: Type.Integer({ minimum: 100, default: 100_000, description: 'keys remembered (LRU)' }),
    },
    { additionalProperties: false },
  ),
  // The --rate-limit* flags are node settings. Off by default; with guardrails, 600 calls per 60 s with
  // a burst of 100 unless set (`--rate-limit 0` switches them off there too).
  configFromNode: (node) => {
    const { rateLimit = {}, guardrails = false } = node as {
      rateLimit?: { limit?: number; windowSeconds?: number; burst?: number };
      guardrails?: boolean;
    };
    return {
      limit: rateLimit.limit ?? (guardrails ? 600 : 0),
      windowSeconds: rateLimit.windowSeconds ?? 60,
      burst: rateLimit.burst ?? (guardrails ? 100 : 0),
    };
  },
  init(ctx) {
    if (ctx.config.limit === 0) {
      ctx.log.info('rate limits off (--rate-limit 0)');
      return undefined;
    }
    ctx.log.info(
      { limit: ctx.config.limit, windowSeconds: ctx.config.windowSeconds, burst: ctx.config.burst },
      'rate limits on',
    );
    return new RateLimiter(ctx.config);
  },
  guards: [
    {
      name: 'per-key-limit',
      summary: 'counts each call of every JSON-RPC request against its key; /health and /metrics are not counted',
      check(request, limiter) {
        if (!limiter || request.phase !== 'request') return undefined;
        const decision = limiter.take(
          request.principal ?? request.clientAddress,
          Math.max(1, request.calls),
          Date.now(),
        );
        Object.assign(request.responseHeaders, decision.headers);
        if (decision.allowed) return undefined;
        const error = domainError(
          'rate_limited',
          `rate limit of ${decision.headers['X-RateLimit-Limit']} calls per window exceeded; retry in ${decision.retryAfterSeconds} s`,
          {
            retryAfterSeconds: decision.retryAfterSeconds,
          },
        );
        return {
          status: 429,
          error: { code: error.code, message: error.message, data: error.data! },
          headers: { 'Retry-After': String(decision.retryAfterSeconds) },
        };
      },
    },
  ],
});
