import { ConfigError } from '../kernel/config/config-error.js';
import type { RawConfig } from '../kernel/config/load.js';
import { MULTIADDR_PATTERN, ROLES } from './config-values.js';
import { bootstrapAddressProblem } from '../p2p/addresses.js';

type Parse = (value: unknown, flag: string) => unknown;

/** One `svc-node start` option: where its value goes in the config, and how its text is read. */
export interface StartFlag {
  readonly flag: string;
  readonly placeholder: string;
  readonly path: string;
  readonly description: string;
  readonly parse: Parse;
  readonly repeatable?: boolean;
}

function single(value: unknown, flag: string): unknown {
  if (Array.isArray(value)) throw new ConfigError(`${flag}: given more than once`);
  if (value === true || value === undefined || value === '') throw new ConfigError(`${flag}: needs a value`);
  return value;
}

const text: Parse = (value, flag) => String(single(value, flag));

function integer(min: number, max: number): Parse {
  return (value, flag) => {
    const raw = single(value, flag);
    const n =
      typeof raw === 'number' ? raw : /^-?\d+$/.test(String(raw).trim()) ? Number(String(raw).trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new ConfigError(`${flag}: expected an integer from ${min} to ${max}, got "${String(raw)}"`);
    return n;
  };
}

const boolean: Parse = (value, flag) => {
  const raw = String(single(value, flag)).toLowerCase();
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(`${flag}: expected true or false, got "${String(value)}"`);
};

function oneOf(values: readonly string[]): Parse {
  return (value, flag) => {
    const raw = String(single(value, flag));
    if (!values.includes(raw)) throw new ConfigError(`${flag}: unknown value "${raw}" (expected ${values.join(', ')})`);
    return raw;
  };
}

const multiaddrPattern = new RegExp(MULTIADDR_PATTERN);

const multiaddrs: Parse = (value, flag) => {
  const items = (Array.isArray(value) ? value : [value])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (items.length === 0) throw new ConfigError(`${flag}: needs at least one multiaddr`);
  for (const item of items) {
    if (!multiaddrPattern.test(item))
      throw new ConfigError(`${flag}: "${item}" is not a multiaddr of the form /ip4/<ip>/tcp/<port>/p2p/<peer_id>`);
    const port = Number(item.split('/')[4]);
    if (port < 1 || port > 65535) throw new ConfigError(`${flag}: "${item}" has port ${port}, expected 1 to 65535`);
    const [, proto, host] = item.split('/');
    if (proto === 'ip4' && !/^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(host!))
      throw new ConfigError(`${flag}: "${item}" has an invalid IPv4 address`);
    const problem = bootstrapAddressProblem(item);
    if (problem) throw new ConfigError(`${flag}: "${item}" ${problem}`);
  }
  return items;
};

const bind: Parse = (value, flag) => {
  const raw = String(single(value, flag));
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw);
  if (!match || Number(match[2]) > 65535)
    throw new ConfigError(`${flag}: expected host:port (port 0 to 65535), got "${raw}"`);
  return raw;
};

const ipAddress: Parse = (value, flag) => {
  const raw = String(single(value, flag));
  if (!/^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:]+)$/.test(raw))
    throw new ConfigError(`${flag}: expected an IP address, got "${raw}"`);
  return raw;
};

const plugins: Parse = (value) =>
  (Array.isArray(value) ? value : [value])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);

export const START_FLAGS: readonly StartFlag[] = [
  {
    flag: '--data-dir',
    placeholder: '<path>',
    path: 'dataDir',
    description: 'all persistent state lives here (default ./data)',
    parse: text,
  },
  {
    flag: '--network',
    placeholder: '<name>',
    path: 'network',
    description: 'devnet has a built-in genesis; others need --genesis (default devnet)',
    parse: text,
  },
  {
    flag: '--genesis',
    placeholder: '<file>',
    path: 'genesis',
    description: 'genesis file for networks other than devnet',
    parse: text,
  },
  {
    flag: '--passphrase-file',
    placeholder: '<file>',
    path: 'passphraseFile',
    description: 'its first line seals the operator key files (else SVC_KEY_PASSPHRASE)',
    parse: text,
  },
  {
    flag: '--role',
    placeholder: '<role>',
    path: 'role',
    description: `${ROLES.join(', ')} (default full)`,
    parse: oneOf(ROLES),
  },
  {
    flag: '--bind',
    placeholder: '<host:port>',
    path: 'rpc.bind',
    description: 'HTTP and WebSocket JSON-RPC; port 0 picks a free one (default 127.0.0.1:8545)',
    parse: bind,
  },
  {
    flag: '--tls-cert',
    placeholder: '<file>',
    path: 'rpc.tls.cert',
    description: 'PEM certificate: serve HTTPS and WSS on the --bind port (with --tls-key)',
    parse: text,
  },
  {
    flag: '--tls-key',
    placeholder: '<file>',
    path: 'rpc.tls.key',
    description: 'PEM private key of --tls-cert',
    parse: text,
  },
  {
    flag: '--p2p-port',
    placeholder: '<port>',
    path: 'p2p.port',
    description: 'libp2p TCP port; 0 picks a free one (default 30333)',
    parse: integer(0, 65535),
  },
  {
    flag: '--p2p-host',
    placeholder: '<ip>',
    path: 'p2p.host',
    description: 'libp2p listen address (default 0.0.0.0)',
    parse: ipAddress,
  },
  {
    flag: '--rpc-max-body',
    placeholder: '<bytes>',
    path: 'rpc.maxBody',
    description: 'largest JSON-RPC body or WebSocket message (default 1048576)',
    parse: integer(1024, 64 * 1024 * 1024),
  },
  {
    flag: '--rpc-max-batch',
    placeholder: '<n>',
    path: 'rpc.maxBatch',
    description: 'most calls in one batch (default 100)',
    parse: integer(1, 10000),
  },
  {
    flag: '--storage',
    placeholder: '<backend>',
    path: 'storage',
    description:
      'rocksdb, or memory for a throw-away node that writes nothing under --data-dir (keys, objects in transit: a temp dir removed at stop) (default rocksdb)',
    parse: oneOf(['rocksdb', 'memory']),
  },
  {
    flag: '--bootstrap-peers',
    placeholder: '<multiaddrs>',
    path: 'p2p.bootstrapPeers',
    description: '/ip4/<ip>/tcp/<port>/p2p/<peer_id>; comma-separated or repeated',
    parse: multiaddrs,
    repeatable: true,
  },
  {
    flag: '--receipt-archive',
    placeholder: '<bool>',
    path: 'chain.receiptArchive',
    description: 'archive: keep every receipt and historical state (default false)',
    parse: boolean,
  },
  {
    flag: '--history-blocks',
    placeholder: '<n>',
    path: 'chain.historyBlocks',
    description: 'without archive: recent blocks of history kept (default 10000)',
    parse: integer(1, Number.MAX_SAFE_INTEGER),
  },
  {
    flag: '--halt-height',
    placeholder: '<n>',
    path: 'chain.haltHeight',
    description: 'stop cleanly before block n (planned maintenance), exiting 0',
    parse: integer(1, Number.MAX_SAFE_INTEGER),
  },
  {
    flag: '--tx-journal',
    placeholder: '<bool>',
    path: 'chain.txJournal',
    description: 'make acknowledged transactions durable before answering, replayed at start (default true)',
    parse: boolean,
  },
  {
    flag: '--state-sync',
    placeholder: '',
    path: 'snapshots.stateSync',
    description:
      "a new node restores a peer's state snapshot at or after --trust-height instead of replaying every block (needs --trust-hash)",
    parse: (value, flag) => (value === true ? true : boolean(value, flag)),
  },
  {
    flag: '--trust-height',
    placeholder: '<n>',
    path: 'snapshots.trustHeight',
    description: 'state sync: a block height you trust, from a node you trust',
    parse: integer(1, Number.MAX_SAFE_INTEGER),
  },
  {
    flag: '--trust-hash',
    placeholder: '<0x…>',
    path: 'snapshots.trustHash',
    description: "state sync: that block's hash (0x and 64 hex characters)",
    parse: (value, flag) => {
      const raw = String(single(value, flag)).toLowerCase();
      if (!/^0x[0-9a-f]{64}$/.test(raw))
        throw new ConfigError(`${flag}: expected 0x and 64 hex characters, got "${raw}"`);
      return raw;
    },
  },
  {
    flag: '--dev',
    placeholder: '',
    path: 'dev',
    description:
      "dev mode: automine, mining on demand, a movable clock, Anvil's test methods (a devnet validator alone in its set)",
    parse: (value, flag) => (value === true ? true : boolean(value, flag)),
  },
  {
    flag: '--load-state',
    placeholder: '<file>',
    path: 'loadState',
    description: "dev mode: loads a state dump at start (anvil_dumpState's, from svc-node or Anvil)",
    parse: text,
  },
  {
    flag: '--dump-state',
    placeholder: '<file>',
    path: 'dumpState',
    description: 'dev mode: dumps the state to a file at stop (as anvil_dumpState)',
    parse: text,
  },
  {
    flag: '--state',
    placeholder: '<file>',
    path: 'state',
    description: 'dev mode: --load-state when the file exists, and --dump-state to it',
    parse: text,
  },
  {
    flag: '--block-time',
    placeholder: '<ms>',
    path: 'validator.blockTime',
    description: 'validator block interval (default 3000)',
    parse: integer(10, 3_600_000),
  },
  {
    flag: '--guardrails',
    placeholder: '<bool>',
    path: 'guardrails',
    description: 'token + nonce auth on every JSON-RPC request (default false)',
    parse: boolean,
  },
  {
    flag: '--rate-limit',
    placeholder: '<n>',
    path: 'rateLimit.limit',
    description: 'requests per window per key; 0 disables',
    parse: integer(0, Number.MAX_SAFE_INTEGER),
  },
  {
    flag: '--rate-limit-window',
    placeholder: '<s>',
    path: 'rateLimit.windowSeconds',
    description: 'rate-limit window, seconds (default 60)',
    parse: integer(1, 86_400),
  },
  {
    flag: '--rate-limit-burst',
    placeholder: '<n>',
    path: 'rateLimit.burst',
    description: 'requests allowed above the limit',
    parse: integer(0, Number.MAX_SAFE_INTEGER),
  },
  {
    flag: '--faucet-cooldown',
    placeholder: '<s>',
    path: 'faucet.cooldownSeconds',
    description: 'faucet per-address cooldown, seconds (default 60)',
    parse: integer(0, 31_536_000),
  },
  {
    flag: '--faucet-authority',
    placeholder: '<peer id>',
    path: 'faucet.authority',
    description:
      "the node that decides the devnet faucet's grants (its libp2p peer id); this node passes requests to it (default: this node decides)",
    parse: text,
  },
  {
    flag: '--log-level',
    placeholder: '<level>',
    path: 'log.level',
    description: 'trace, debug, info, warn, error, fatal, silent (default info)',
    parse: oneOf(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']),
  },
  {
    flag: '--log-format',
    placeholder: '<format>',
    path: 'log.format',
    description: 'json or pretty (default pretty on a TTY, else json)',
    parse: oneOf(['json', 'pretty']),
  },
  {
    flag: '--plugin',
    placeholder: '<spec>',
    path: 'plugins',
    description: 'enable a plugin: first-party name, npm package or file path; repeatable',
    parse: plugins,
    repeatable: true,
  },
];

/** cac's camelCase key for a flag: `--rpc-max-body` -> `rpcMaxBody`. */
export function optionKey(flag: string): string {
  return flag.slice(2).replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** Turns parsed CLI options into a config object, and records which flag set which path. */
export function flagsToConfig(options: Record<string, unknown>): { config: RawConfig; origins: Map<string, string> } {
  const config: RawConfig = {};
  const origins = new Map<string, string>();
  for (const flag of START_FLAGS) {
    const value = options[optionKey(flag.flag)];
    if (value === undefined) continue;
    const parsed = flag.parse(value, flag.flag);
    const keys = flag.path.split('.');
    let target = config;
    for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as RawConfig;
    target[keys.at(-1)!] = parsed;
    origins.set(flag.path, flag.flag);
  }
  return { config, origins };
}
