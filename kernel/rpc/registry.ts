import { Compile, type Validator } from 'typebox/compile';
import type { RpcMethod } from '../plugin.js';
import { ParamsValidator } from './params.js';
import { ErrorRegistry } from './error-registry.js';
import { KERNEL_ERRORS } from './kernel-errors.js';

export interface RegisteredMethod {
  readonly spec: RpcMethod;
  readonly owner: string;
  readonly params: ParamsValidator;
  readonly result: Validator;
  readonly service: unknown;
}

export class DuplicateMethodError extends Error {
  override name = 'DuplicateMethodError';
}

export class MethodNameError extends Error {
  override name = 'MethodNameError';
}

export class UndeclaredErrorError extends Error {
  override name = 'UndeclaredErrorError';
}

// A version suffix as Ethereum's `eth_signTypedData_v4` has.
const METHOD_NAME = /^(rpc\.discover|[a-z][a-zA-Z0-9]*_[a-zA-Z][a-zA-Z0-9]*(_v[0-9]+)?)$/;

/**
 * Every RPC method of the node, owned by the plugin that registered it. Registering a name twice is
 * refused, and so is a method that lists an error no one declared (the plugins' errors are declared
 * before their methods are added).
 */
export class MethodRegistry {
  private readonly methods = new Map<string, RegisteredMethod>();
  /** The errors methods may answer with: the kernel's and each loaded plugin's. */
  readonly errors = new ErrorRegistry(KERNEL_ERRORS);

  add(spec: RpcMethod, owner: string, service: unknown): void {
    if (!METHOD_NAME.test(spec.name)) {
      throw new MethodNameError(
        `plugin "${owner}": method name "${spec.name}" must be <namespace>_<camelCase>, with a version suffix _v<n> at most`,
      );
    }
    const undeclared = (spec.errors ?? []).filter((name) => !this.errors.get(name));
    if (undeclared.length > 0)
      throw new UndeclaredErrorError(
        `method "${spec.name}" of plugin "${owner}" lists ${undeclared.map((name) => `"${name}"`).join(', ')}, which no loaded plugin declares (its plugin's \`errors\`)`,
      );
    const existing = this.methods.get(spec.name);
    if (existing)
      throw new DuplicateMethodError(
        `method "${spec.name}" of plugin "${owner}" is already registered by plugin "${existing.owner}"`,
      );
    this.methods.set(spec.name, {
      spec,
      owner,
      service,
      params: new ParamsValidator(spec.name, spec.params),
      result: Compile(spec.result),
    });
  }

  get(name: string): RegisteredMethod | undefined {
    return this.methods.get(name);
  }

  has(name: string): boolean {
    return this.methods.has(name);
  }

  list(): RegisteredMethod[] {
    return [...this.methods.values()].sort((a, b) => a.spec.name.localeCompare(b.spec.name));
  }
}
