import { readFileSync } from 'node:fs';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ConfigError, checkConfig, type FlagOrigins } from './errors.js';
import { NODE_KEYS, NodeConfigSchema, type NodeConfig } from './schema.js';

export type RawConfig = Record<string, unknown>;

/** Reads a JSON config file; `//` and `/* *\/` comments and trailing commas are allowed. */
export function readConfigFile(path: string): RawConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`--config: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const before = text.slice(0, first.offset);
    const line = before.split('\n').length;
    const column = first.offset - before.lastIndexOf('\n');
    throw new ConfigError(`--config: ${path}:${line}:${column}: ${printParseErrorCode(first.error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`--config: ${path} must hold a JSON object`);
  return value as RawConfig;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep merge where `over` wins; arrays and scalars are replaced, objects merged. */
export function mergeConfig(base: RawConfig, over: RawConfig): RawConfig {
  const out: RawConfig = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeConfig(current, value) : value;
  }
  return out;
}

export interface ResolvedConfig {
  readonly node: NodeConfig;
  /** Plugin slices by plugin name, not yet checked (each plugin's schema checks its own). */
  readonly slices: Readonly<Record<string, unknown>>;
  readonly origins: FlagOrigins;
}

/** Splits the node's keys from the plugin slices and checks the node's part. */
export function resolveConfig(raw: RawConfig, origins: FlagOrigins = new Map()): ResolvedConfig {
  const nodePart: RawConfig = {};
  const slices: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === '$schema' || key.startsWith('//')) continue;
    if (NODE_KEYS.has(key)) nodePart[key] = value;
    else slices[key] = value;
  }
  const tls = (nodePart.rpc as { tls?: Record<string, unknown> } | undefined)?.tls;
  if (tls && (tls.cert === undefined) !== (tls.key === undefined)) throw new ConfigError('--tls-cert and --tls-key (config rpc.tls.cert and rpc.tls.key) go together: give both');
  const node = checkConfig<NodeConfig>(NodeConfigSchema, nodePart, '', origins);
  if (node.network !== 'devnet' && !node.genesis) throw new ConfigError(`--network ${node.network}: needs --genesis <file> (only devnet has a built-in genesis)`);
  return { node, slices, origins };
}
