import Type, { type Static } from 'typebox';

import { MULTIADDR_PATTERN, NETWORK_NAME_PATTERN } from './config-values.js';

/** The node's own settings. Each plugin's settings live beside them, under the plugin's name. */
export const NodeConfigSchema = Type.Object(
  {
    network: Type.String({
      pattern: NETWORK_NAME_PATTERN,
      default: 'devnet',
      description: 'network name; devnet has a built-in genesis',
    }),
    genesis: Type.Optional(
      Type.String({ minLength: 1, description: 'genesis file, required for networks other than devnet' }),
    ),
    role: Type.Union([Type.Literal('validator'), Type.Literal('compute'), Type.Literal('full')], {
      default: 'full',
      description: 'validator, compute or full',
    }),
    dev: Type.Boolean({
      default: false,
      description:
        "dev mode: a devnet validator that is its whole validator set, with automine, mining on demand, a movable clock and Anvil's test methods (role validator; devnet only)",
    }),
    loadState: Type.Optional(
      Type.String({
        minLength: 1,
        description: "dev mode: a state dump (anvil_dumpState's, svc-node's or Anvil's) loaded at start",
      }),
    ),
    dumpState: Type.Optional(
      Type.String({
        minLength: 1,
        description: "dev mode: where the state is dumped at stop (anvil_dumpState's form)",
      }),
    ),
    state: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'dev mode: a state dump loaded at start when the file exists, and written there at stop',
      }),
    ),
    dataDir: Type.String({ minLength: 1, default: './data', description: 'all persistent state lives here' }),
    storage: Type.Union([Type.Literal('rocksdb'), Type.Literal('memory')], {
      default: 'rocksdb',
      description:
        'rocksdb, or memory for a throw-away node: nothing is written under the data dir (its keys and objects in transit live in a temp dir removed at stop)',
    }),
    plugins: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'extra plugins: first-party names, npm package names or file paths',
    }),
    passphraseFile: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'file whose first line seals the operator key files (else SVC_KEY_PASSPHRASE; else they are plain, mode 0600)',
      }),
    ),
    rpc: Type.Object(
      {
        bind: Type.String({
          pattern: '^(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$',
          default: '127.0.0.1:8545',
          description: 'host:port of HTTP and WebSocket JSON-RPC; port 0 picks a free one',
        }),
        maxBody: Type.Integer({
          minimum: 1024,
          maximum: 64 * 1024 * 1024,
          default: 1048576,
          description: 'largest request body or WebSocket message, bytes',
        }),
        maxBatch: Type.Integer({ minimum: 1, maximum: 10000, default: 100, description: 'most calls in one batch' }),
        validateResults: Type.Boolean({
          default: false,
          description: 'check every result against its schema (development)',
        }),
        trustedProxies: Type.Array(Type.String({ pattern: '^[0-9a-fA-F.:]+(/[0-9]{1,3})?$' }), {
          default: [],
          description: 'proxies (IPs or CIDRs) whose X-Forwarded-For names the client',
        }),
        corsOrigins: Type.Optional(
          Type.Array(Type.String({ minLength: 1 }), {
            description: 'browser origins allowed, or ["*"]; default: "*" without guardrails, none with them',
          }),
        ),
        maxWsConnections: Type.Integer({ minimum: 1, default: 1000, description: 'open WebSocket connections in all' }),
        maxWsConnectionsPerClient: Type.Integer({
          minimum: 1,
          default: 100,
          description: 'open WebSocket connections per client address',
        }),
        wsIdleTimeoutSeconds: Type.Integer({
          minimum: 1,
          default: 600,
          description: 'a WebSocket that sends nothing for this long is closed',
        }),
        maxSubscriptionsPerConnection: Type.Integer({
          minimum: 1,
          default: 100,
          description: 'subscriptions one WebSocket connection may hold',
        }),
        wsMaxBufferedBytes: Type.Integer({
          minimum: 65536,
          default: 16 * 1024 * 1024,
          description: 'bytes queued for a slow WebSocket client before it is dropped',
        }),
        tls: Type.Optional(
          Type.Object(
            {
              cert: Type.String({ minLength: 1, description: 'PEM certificate (chain) file (--tls-cert)' }),
              key: Type.String({ minLength: 1, description: 'PEM private key file (--tls-key)' }),
            },
            { additionalProperties: false, description: 'serve HTTPS and WSS on the bind port' },
          ),
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    p2p: Type.Object(
      {
        host: Type.String({ minLength: 1, default: '0.0.0.0', description: 'libp2p listen address' }),
        port: Type.Integer({
          minimum: 0,
          maximum: 65535,
          default: 30333,
          description: 'libp2p TCP port; 0 picks a free one',
        }),
        bootstrapPeers: Type.Array(Type.String({ pattern: MULTIADDR_PATTERN }), {
          default: [],
          description: 'multiaddrs of peers to dial at start, and again whenever they drop',
        }),
        maxConnections: Type.Integer({
          minimum: 1,
          maximum: 10_000,
          default: 64,
          description: 'most open peer connections',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    chain: Type.Object(
      {
        receiptArchive: Type.Boolean({
          default: false,
          description: 'archive capability: keep every receipt and historical state',
        }),
        historyBlocks: Type.Integer({
          minimum: 1,
          default: 10000,
          description: 'without archive: recent blocks of receipts and state kept',
        }),
        haltHeight: Type.Optional(
          Type.Integer({
            minimum: 1,
            description:
              'stop cleanly before this block (planned maintenance): the node exits 0 there, and at a later start',
          }),
        ),
        txJournal: Type.Boolean({
          default: true,
          description:
            'journal every acknowledged transaction durably before the acknowledgement, replayed at start (never with storage memory)',
        }),
        txJournalMaxBytes: Type.Integer({
          minimum: 4096,
          default: 256 * 1024 * 1024,
          description: 'most bytes of pending transactions in the journal; past it submissions answer mempool_full',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    guardrails: Type.Boolean({ default: false, description: 'token + nonce auth on every JSON-RPC request' }),
    rateLimit: Type.Object(
      {
        limit: Type.Optional(
          Type.Integer({
            minimum: 0,
            description: 'requests per window per key; 0 disables (default 0, or 600 with guardrails)',
          }),
        ),
        windowSeconds: Type.Integer({ minimum: 1, default: 60, description: 'window length, seconds' }),
        burst: Type.Optional(
          Type.Integer({
            minimum: 0,
            description: 'extra requests allowed above the limit (default 0, or 100 with guardrails)',
          }),
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    log: Type.Object(
      {
        level: Type.Union(
          [
            Type.Literal('trace'),
            Type.Literal('debug'),
            Type.Literal('info'),
            Type.Literal('warn'),
            Type.Literal('error'),
            Type.Literal('fatal'),
            Type.Literal('silent'),
          ],
          { default: 'info' },
        ),
        format: Type.Optional(
          Type.Union([Type.Literal('json'), Type.Literal('pretty')], {
            description: 'default: pretty on a TTY, else json',
          }),
        ),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: true },
);

export type NodeConfig = Static<typeof NodeConfigSchema>;

/** Top-level config keys that belong to the node; every other top-level key is a plugin's slice. */
export const NODE_KEYS: ReadonlySet<string> = new Set(Object.keys(NodeConfigSchema.properties));
