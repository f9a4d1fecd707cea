import { Compile, type Validator } from 'typebox/compile';
import type { TxKind } from '../plugin.js';

export interface RegisteredTxKind {
  readonly spec: TxKind;
  readonly owner: string;
  readonly service: unknown;
  readonly payload: Validator;
}

export class DuplicateTxKindError extends Error {
  override name = 'DuplicateTxKindError';
}

const KIND_NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-zA-Z0-9-]*)?$/;

/** Transaction kinds by name, each owned by the plugin that executes it. */
export class TxKindRegistry {
  private readonly kinds = new Map<string, RegisteredTxKind>();

  add(spec: TxKind, owner: string, service: unknown): void {
    if (!KIND_NAME.test(spec.kind)) throw new DuplicateTxKindError(`plugin "${owner}": transaction kind "${spec.kind}" must match ${KIND_NAME}`);
    const existing = this.kinds.get(spec.kind);
    if (existing) throw new DuplicateTxKindError(`transaction kind "${spec.kind}" of plugin "${owner}" is already registered by plugin "${existing.owner}"`);
    this.kinds.set(spec.kind, { spec, owner, service, payload: Compile(spec.payload) });
  }

  get(kind: string): RegisteredTxKind | undefined {
    return this.kinds.get(kind);
  }

  list(): RegisteredTxKind[] {
    return [...this.kinds.values()];
  }
}
