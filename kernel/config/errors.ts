import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

import { ConfigError, type FlagOrigins } from './config-error.js';

export { ConfigError, type FlagOrigins } from './config-error.js';

interface SchemaError {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

function describeKey(path: string, origins: FlagOrigins, noun: string): string {
  const flag = origins.get(path);
  return flag ? `${flag}` : `${noun} "${path}"`;
}

/**
 * Applies the schema's defaults to `value` and checks it. Throws a ConfigError naming the first bad
 * key, under `prefix` (the plugin's slice name, or '' for the node's own keys); `noun` names what
 * a key is of (another JSON document checked the same way says "manifest key").
 */
export function checkConfig<T>(
  schema: TSchema,
  value: unknown,
  prefix: string,
  origins: FlagOrigins,
  noun = 'config key',
): T {
  const withDefaults = Value.Default(schema, structuredClone(value ?? {}));
  const validator = Compile(schema);
  if (validator.Check(withDefaults)) return withDefaults as T;
  const errors = (validator.Errors(withDefaults) as unknown as SchemaError[]).filter((e) => e.keyword !== 'boolean');
  const error = errors.sort((a, b) => b.instancePath.length - a.instancePath.length)[0]!;
  const segments = error.instancePath.split('/').slice(1);
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params.additionalProperties as string[])[0]!;
    const path = [prefix, ...segments, extra].filter(Boolean).join('.');
    throw new ConfigError(`unknown ${noun} "${path}"`);
  }
  if (error.keyword === 'required') {
    const missing = (error.params.requiredProperties as string[] | undefined)?.[0] ?? '?';
    const path = [prefix, ...segments, missing].filter(Boolean).join('.');
    throw new ConfigError(`${noun} "${path}" is required`);
  }
  const path = [prefix, ...segments].filter(Boolean).join('.');
  const allowed = error.keyword === 'anyOf' || error.keyword === 'const' ? allowedValues(schema, segments) : undefined;
  throw new ConfigError(
    `${describeKey(path, origins, noun)}: ${allowed ? `must be one of ${allowed}` : error.message}`,
  );
}

function allowedValues(schema: TSchema, segments: string[]): string | undefined {
  let current = schema as unknown as Record<string, unknown> | undefined;
  for (const segment of segments)
    current = (current?.properties as Record<string, Record<string, unknown>> | undefined)?.[segment];
  const options = current?.anyOf as { const?: unknown }[] | undefined;
  if (!options?.every((o) => o.const !== undefined)) return undefined;
  return options.map((o) => JSON.stringify(o.const)).join(', ');
}
