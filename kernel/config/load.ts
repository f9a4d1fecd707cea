import { readFileSync } from 'node:fs';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ConfigError } from './config-error.js';

export type RawConfig = Record<string, unknown>;

/** Reads a JSON config file; `//` and `/* *\/` comments and trailing commas are allowed. */
export function readConfigFile(path: string): RawConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `--config: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
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
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError(`--config: ${path} must hold a JSON object`);
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
