import type { TSchema } from 'typebox';
import { allowedValues, schemaAt } from '../../kernel/rpc/params.js';

interface SchemaError {
  readonly instancePath?: string;
  readonly message?: string;
}

/**
 * What is wrong with a precompile's request, in the words the RPC's params checks use: the field and
 * its rule, and for a field of a few allowed values those values (`replicas must be one of 1, 2`,
 * not a schema's `must be equal to constant`).
 */
export function payloadProblem(schema: TSchema, errors: readonly SchemaError[]): string {
  const error = errors[0];
  const path = error?.instancePath?.split('/').slice(1) ?? [];
  const field = path.join('.') || 'request';
  const at = path.length > 0 ? schemaAt(schema, path) : undefined;
  const allowed = at ? allowedValues(at) : undefined;
  if (allowed)
    return `${field} must be one of ${allowed.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(', ')}`;
  return `${field} ${error?.message ?? 'is invalid'}`;
}
