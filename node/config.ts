import { ConfigError, checkConfig, type FlagOrigins } from '../kernel/config/errors.js';
import type { RawConfig } from '../kernel/config/load.js';
import { NODE_KEYS, NodeConfigSchema, type NodeConfig } from './config-schema.js';

export interface ResolvedConfig {
  readonly node: NodeConfig;
  /** Plugin slices by plugin name, not yet checked (each plugin's schema checks its own). */
  readonly slices: Readonly<Record<string, unknown>>;
  readonly origins: FlagOrigins;
}

/** Splits the node's keys from the plugin slices and checks the node's part. */
/** Dev mode's idle interval unless --block-time says otherwise. */
const DEV_IDLE_BLOCK_MS = 1000;

export function resolveConfig(raw: RawConfig, origins: FlagOrigins = new Map()): ResolvedConfig {
  const nodePart: RawConfig = {};
  const slices: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === '$schema' || key.startsWith('//')) continue;
    if (NODE_KEYS.has(key)) nodePart[key] = value;
    else slices[key] = value;
  }
  const tls = (nodePart.rpc as { tls?: Record<string, unknown> } | undefined)?.tls;
  if (tls && (tls.cert === undefined) !== (tls.key === undefined))
    throw new ConfigError('--tls-cert and --tls-key (config rpc.tls.cert and rpc.tls.key) go together: give both');
  if (nodePart.dev === true) {
    // Dev mode is a validator's: the role follows from it, and any other is a contradiction.
    nodePart.role ??= 'validator';
    if (nodePart.role !== 'validator')
      throw new ConfigError(`--dev: dev mode runs a validator; --role ${String(nodePart.role)} contradicts it`);
    if ((slices.validator as { keyFile?: unknown } | undefined)?.keyFile !== undefined)
      throw new ConfigError("--dev: dev mode signs with the devnet's validator key; drop validator.keyFile");
    // Automine makes the blocks transactions need; idle, a block a second moves time for what waits on it.
    slices.validator = { blockTime: DEV_IDLE_BLOCK_MS, ...(slices.validator as object | undefined) };
  }
  const node = checkConfig<NodeConfig>(NodeConfigSchema, nodePart, '', origins);
  if (node.dev && (node.network !== 'devnet' || node.genesis))
    throw new ConfigError(
      `--dev: dev mode runs only on the built-in devnet (not --network ${node.network}${node.genesis ? ` with --genesis ${node.genesis}` : ''}): a chain with consensus cannot mine on demand, move its clock or rewind`,
    );
  if (node.network !== 'devnet' && !node.genesis)
    throw new ConfigError(`--network ${node.network}: needs --genesis <file> (only devnet has a built-in genesis)`);
  return { node, slices, origins };
}
