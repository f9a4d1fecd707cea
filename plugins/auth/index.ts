import Type from 'typebox';
import { domainError } from '../../sdk/errors.js';
import { definePlugin, type GuardRefusal } from '../../kernel/plugin.js';
import { NonceLedger } from './nonces.js';
import { TokenSet } from './tokens.js';
import { AUTH_ERRORS } from './errors.js';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="svc-node"' };

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function refuse(name: 'unauthorized' | 'nonce_reused', reason: string): GuardRefusal {
  const error = domainError(name, reason);
  return { status: 401, error: { code: error.code, message: error.message, data: error.data! }, headers: CHALLENGE };
}

export default definePlugin({
  name: 'auth',
  errors: AUTH_ERRORS,
  version: '1.0.0',
  description:
    'deployment guardrails: a bearer token and a fresh nonce on every JSON-RPC request and WebSocket handshake; a token for /metrics',
  config: Type.Object(
    {
      tokenFile: Type.Optional(
        Type.String({ minLength: 1, description: 'file of accepted tokens, one per line (besides SVC_RPC_TOKENS)' }),
      ),
      nonceWindowSeconds: Type.Integer({
        minimum: 1,
        maximum: 3600,
        default: 300,
        description: 'how far a nonce time may be from the node clock',
      }),
      maxTrackedNonces: Type.Integer({
        minimum: 1000,
        default: 1_000_000,
        description: 'most nonces remembered for replay checks',
      }),
    },
    { additionalProperties: false },
  ),
  init(ctx) {
    const tokens = new TokenSet({ env: process.env.SVC_RPC_TOKENS, file: ctx.config.tokenFile });
    if (tokens.size === 0)
      throw new Error('auth: guardrails are on but no token is configured: set SVC_RPC_TOKENS or "auth.tokenFile"');
    ctx.log.info(
      { tokens: tokens.size, nonceWindowSeconds: ctx.config.nonceWindowSeconds },
      'guardrails on: token and nonce required',
    );
    return { tokens, nonces: new NonceLedger(ctx.config.nonceWindowSeconds * 1000, ctx.config.maxTrackedNonces) };
  },
  // Public, as /health is: that a token is needed is no secret (every refusal says it), and a page can ask for one before calling.
  health: () => ({ guardrails: true }),
  guards: [
    {
      name: 'token-and-nonce',
      summary:
        'Authorization: Bearer <token> and X-Svc-Nonce on JSON-RPC requests and WebSocket handshakes; the token alone on protected routes',
      check(request, { tokens, nonces }) {
        // A WebSocket authenticated at its handshake; its messages carry no headers of their own.
        if (request.transport === 'ws' && request.phase === 'request') return undefined;
        const authorization = header(request.headers.authorization);
        const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
        if (!match) return refuse('unauthorized', 'an Authorization: Bearer <token> header is required');
        const principal = tokens.identify(match[1]!);
        if (!principal) return refuse('unauthorized', 'the bearer token is not accepted');
        request.principal = principal;
        if (request.phase === 'route') return undefined;
        const verdict = nonces.check(principal, header(request.headers['x-svc-nonce']), Date.now());
        return verdict.ok ? undefined : refuse('nonce_reused', verdict.reason);
      },
    },
  ],
});
