import { Compile, type Validator } from 'typebox/compile';
import type { SignedTransaction } from '../sdk/transaction.js';
import type { PluginEntry } from '../kernel/plugin.js';
import { pluginTxKinds, type EndBlockContext, type PayloadProblem, type TxKind } from './contract.js';

export interface BlockHook {
  readonly owner: string;
  readonly run: (ctx: EndBlockContext) => void | Promise<void>;
}

export interface RegisteredTxKind {
  readonly spec: TxKind;
  readonly owner: string;
  /** The owning plugin's service (read when the kind runs: plugins init after the chain). */
  readonly service: () => unknown;
  readonly payload: Validator;
}

export class DuplicateTxKindError extends Error {
  override name = 'DuplicateTxKindError';
}

const KIND_NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-zA-Z0-9-]*)?$/;

/** Transaction kinds by name, each owned by the plugin that executes it; and plugins' end-of-block steps. */
export class TxKindRegistry {
  /** The kinds and end-of-block steps every enabled plugin declares: `endBlock`s in plugin order, then `afterEndBlock`s. */
  static collect(plugins: readonly PluginEntry[]): TxKindRegistry {
    const registry = new TxKindRegistry();
    type Step = ((ctx: EndBlockContext, service: unknown) => void | Promise<void>) | undefined;
    type DueStep =
      | ((read: (key: string) => Uint8Array | undefined, service: unknown) => number | undefined)
      | undefined;
    for (const { definition, service } of plugins) {
      for (const kind of pluginTxKinds(definition)) registry.add(kind, definition.name, service);
      const delegates = definition.stateDelegates as readonly string[] | undefined;
      if (delegates && delegates.length > 0) registry.delegates.set(definition.name, new Set(delegates));
      for (const param of (definition.params as readonly string[] | undefined) ?? []) {
        const owner = registry.paramOwners.get(param);
        if (owner !== undefined)
          throw new DuplicateTxKindError(
            `plugins "${owner}" and "${definition.name}" both own the consensus parameter params/${param}`,
          );
        registry.paramOwners.set(param, definition.name);
      }
      const endBlock = definition.endBlock as Step;
      if (endBlock) registry.addEndBlock(definition.name, (ctx) => endBlock(ctx, service()));
      const nextDue = definition.nextDue as DueStep;
      if (nextDue) registry.dueSteps.push((read) => nextDue(read, service()));
    }
    for (const { definition, service } of plugins) {
      const afterEndBlock = definition.afterEndBlock as Step;
      if (afterEndBlock) registry.addEndBlock(definition.name, (ctx) => afterEndBlock(ctx, service()));
    }
    return registry;
  }

  private readonly kinds = new Map<string, RegisteredTxKind>();
  private readonly hooks: BlockHook[] = [];
  private readonly dueSteps: ((read: (key: string) => Uint8Array | undefined) => number | undefined)[] = [];
  /** Plugin -> the plugins it lets write its state keys (`stateDelegates`). */
  private readonly delegates = new Map<string, ReadonlySet<string>>();
  /** A consensus parameter's name -> the plugin that owns it (`params`). */
  private readonly paramOwners = new Map<string, string>();

  /** Whether plugin `writer` may write `key`: its own prefix, one whose plugin names it a delegate, or a parameter it owns. */
  mayWrite(writer: string, key: string): boolean {
    const slash = key.indexOf('/');
    if (slash <= 0) return false;
    const owner = key.slice(0, slash);
    if (owner === 'params') return this.paramOwners.get(key.slice(slash + 1)) === writer;
    return owner === writer || this.delegates.get(owner)?.has(writer) === true;
  }

  /** An end-of-block step; they run in the order added (collect: `endBlock`s, then `afterEndBlock`s). */
  addEndBlock(owner: string, run: (ctx: EndBlockContext) => void | Promise<void>): void {
    this.hooks.push({ owner, run });
  }

  get endBlockHooks(): readonly BlockHook[] {
    return this.hooks;
  }

  /** The earliest time (unix ms) an end-of-block step has work due (plugins' `nextDue`), or undefined. */
  nextDue(read: (key: string) => Uint8Array | undefined): number | undefined {
    let soonest: number | undefined;
    for (const step of this.dueSteps) {
      const due = step(read);
      if (due !== undefined && (soonest === undefined || due < soonest)) soonest = due;
    }
    return soonest;
  }

  add(spec: TxKind, owner: string, service: () => unknown): void {
    if (!KIND_NAME.test(spec.kind))
      throw new DuplicateTxKindError(`plugin "${owner}": transaction kind "${spec.kind}" must match ${KIND_NAME}`);
    const existing = this.kinds.get(spec.kind);
    if (existing)
      throw new DuplicateTxKindError(
        `transaction kind "${spec.kind}" of plugin "${owner}" is already registered by plugin "${existing.owner}"`,
      );
    this.kinds.set(spec.kind, { spec, owner, service, payload: Compile(spec.payload) });
  }

  get(kind: string): RegisteredTxKind | undefined {
    return this.kinds.get(kind);
  }

  /**
   * The transaction's kind, once its payload and signer pass in a block of `rulesVersion`; otherwise
   * why not (and the field at fault).
   */
  check(
    tx: SignedTransaction,
    rulesVersion: number,
  ):
    | { kind: RegisteredTxKind }
    | { reason: string; field: string; payload?: { kind: RegisteredTxKind; problem: PayloadProblem } } {
    const kind = this.kinds.get(tx.kind);
    if (!kind) return { reason: `unknown transaction kind "${tx.kind}"`, field: 'kind' };
    const since = kind.spec.sinceRulesVersion;
    if (since !== undefined && rulesVersion < since)
      return {
        reason: `transaction kind "${tx.kind}" exists from chain rules version ${since}; the next block runs version ${rulesVersion}`,
        field: 'kind',
      };
    if (!kind.payload.Check(tx.payload)) {
      const error = kind.payload.Errors(tx.payload)[0] as
        | { instancePath?: string; message?: string; keyword?: string }
        | undefined;
      const field = error?.instancePath?.slice(1) || 'payload';
      const reason = `payload of ${tx.kind}: ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`;
      return { reason, field, payload: { kind, problem: { field, keyword: error?.keyword ?? '', reason } } };
    }
    const refused = kind.spec.authorize?.(tx, tx.payload, kind.service());
    return refused ? { reason: refused, field: 'signer' } : { kind };
  }

  list(): RegisteredTxKind[] {
    return [...this.kinds.values()];
  }
}
