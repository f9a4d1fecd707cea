import { Compile, type Validator } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { domainError, invalidAddressReason, type DomainErrorName, type RpcError } from '../../sdk/errors.js';
import type { ParamSpec } from '../plugin.js';

/** The JSON schema of a positional parameter list: a tuple with an optional tail. */
export function paramsSchema(params: readonly ParamSpec[]): TSchema {
  const required = params.filter((p) => !p.optional).length;
  return {
    type: 'array',
    items: params.map((p) => p.schema),
    minItems: required,
    maxItems: params.length,
    additionalItems: false,
  } as unknown as TSchema;
}

interface ValidationError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

/** Validates a call's params before its handler runs, turning schema errors into domain errors (`invalid_params` naming the field, `invalid_address`). */
export class ParamsValidator {
  private readonly validator: Validator;
  private readonly required: number;

  constructor(
    private readonly method: string,
    private readonly params: readonly ParamSpec[],
  ) {
    this.validator = Compile(paramsSchema(params));
    this.required = params.filter((p) => !p.optional).length;
  }

  /** Returns undefined when valid, else the error to send. */
  check(values: unknown[]): RpcError | undefined {
    if (values.length === 0 && this.required === 0) return undefined;
    if (values.length < this.required || values.length > this.params.length) {
      const expected =
        this.required === this.params.length ? `${this.required}` : `${this.required} to ${this.params.length}`;
      return domainError('invalid_params', `${this.method} takes ${expected} parameter(s), got ${values.length}`, {
        field: 'params',
        expected: this.params.map((p) => (p.optional ? `${p.name}?` : p.name)),
      });
    }
    if (this.validator.Check(values)) return undefined;
    const errors = this.validator.Errors(values) as unknown as ValidationError[];
    return this.describe(errors, values);
  }

  private describe(errors: ValidationError[], values: unknown[]): RpcError {
    // The most specific error is the deepest one; additionalProperties names the unknown field itself.
    const sorted = [...errors]
      .filter((e) => e.keyword !== 'boolean')
      .sort((a, b) => depth(b.instancePath) - depth(a.instancePath));
    const error = sorted[0] ?? errors[0]!;
    const segments = error.instancePath.split('/').slice(1).map(decodePointer);
    const index = Number(segments[0]);
    const spec = this.params[index];
    const rest = segments.slice(1);
    let field = rest.length > 0 ? rest.join('.') : (spec?.name ?? 'params');
    let reason = `${field} ${error.message}`;
    if (error.keyword === 'additionalProperties') {
      const extra = (error.params.additionalProperties as string[] | undefined)?.[0] ?? '?';
      field = rest.length > 0 ? `${rest.join('.')}.${extra}` : extra;
      reason = `unknown field "${field}"`;
    }
    const schema = spec ? schemaAt(spec.schema, rest) : undefined;
    const allowed = schema ? allowedValues(schema) : undefined;
    if (allowed && error.keyword !== 'additionalProperties')
      reason = `${field} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
    const name: DomainErrorName = schema?.['x-error'] === 'invalid_address' ? 'invalid_address' : 'invalid_params';
    if (name === 'invalid_address')
      reason = invalidAddressReason(
        field,
        segments.reduce<unknown>(
          (at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
          values,
        ),
      );
    return domainError(name, reason, { field });
  }
}

function depth(path: string): number {
  return path === '' ? 0 : path.split('/').length;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

export type Schemaish = Record<string, unknown>;

/** The values an enum-like schema (a union of literals) allows, so an error can list them. */
export function allowedValues(schema: Schemaish): unknown[] | undefined {
  const options = schema.anyOf as Schemaish[] | undefined;
  if (!Array.isArray(options) || !options.every((o) => 'const' in o)) return undefined;
  return options.map((o) => o.const);
}

/** The subschema that describes the value at `path` (object properties and array items only). */
export function schemaAt(schema: TSchema, path: string[]): Schemaish | undefined {
  let current: Schemaish | undefined = schema as unknown as Schemaish;
  for (const segment of path) {
    if (!current) return undefined;
    const properties = current.properties as Record<string, Schemaish> | undefined;
    if (properties && segment in properties) current = properties[segment];
    else if (current.items && !Array.isArray(current.items)) current = current.items as Schemaish;
    else return undefined;
  }
  return current;
}
