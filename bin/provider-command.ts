import type { SvcClient } from '../sdk/index.js';
import { formatAmountShort } from '../sdk/index.js';
import { accountText, amountOption, optionText, UsageError } from './cli-args.js';
import { waitingFor } from './wait-for.js';

/** What `svc oon` and `svc omp` need from the CLI around them. */
export interface ProviderCommandContext<O> {
  readonly client: (options: O) => SvcClient;
  /** ` --url <url>` as typed (empty for the default): what a follow-up command needs to reach the same node. */
  readonly urlFlag: (options: O) => string;
  readonly print: (options: O, value: unknown, human: () => string) => void;
}

export type ProviderOptions = {
  operator?: unknown;
  bond?: unknown;
  wait?: boolean;
  capabilities?: unknown;
  maxJobs?: unknown;
  capacityGb?: unknown;
  formats?: unknown;
};

/** The part of a compute or storage registration's status that the shared actions read. */
interface RegistrationStatus {
  status: string;
  operator: string | null;
  bond_ogt: string;
  txHash: string | null;
  unregisterTxHash: string | null;
  releaseAt: number | null;
}

/** One provider kind: its RPC calls and how its own fields read. */
export interface ProviderKind<O, S extends RegistrationStatus, P, R> {
  readonly group: 'oon' | 'omp';
  /** `compute`, `storage`: the first word of the status. */
  readonly noun: string;
  /** The kind's own register flags, read before anything is sent (a wrong flag needs no node). */
  registration(options: O): R;
  register(client: SvcClient, operator: string, registration: R): Promise<S>;
  status(client: SvcClient): Promise<S>;
  unregister(client: SvcClient): Promise<S>;
  providers(client: SvcClient): Promise<P[]>;
  /** The status lines after operator and bond. */
  details(status: S): string;
  /** One line of `providers`. */
  describeProvider(provider: P): string;
}

/**
 * `register`, `status`, `unregister` and `providers` of a provider kind; false when `action` is none of
 * them (the caller's other actions, or its usage error).
 */
export async function providerAction<O extends ProviderOptions, S extends RegistrationStatus, P, R>(
  ctx: ProviderCommandContext<O>,
  kind: ProviderKind<O, S, P, R>,
  action: string,
  options: O,
): Promise<boolean> {
  const c = ctx.client(options);
  const show = (s: S): void => ctx.print(options, s, () => describeRegistration(kind.noun, s, kind.details(s)));
  const waitFor = (noun: string, id: string | null, done: (s: S) => boolean): Promise<S> =>
    waitingFor({ noun, id: id ?? '', followUp: `svc ${kind.group} status${ctx.urlFlag(options)}` }, () =>
      waitUntil(() => kind.status(c), done),
    );
  if (action === 'register') {
    const registration = kind.registration(options);
    const operator = options.operator === undefined ? (await c.nodeInfo()).operator : accountText(options.operator);
    const registered = await kind.register(c, operator, registration);
    show(
      options.wait
        ? await waitFor('registration transaction', registered.txHash, (s) => s.status !== 'pending')
        : registered,
    );
    return true;
  }
  if (action === 'status') {
    show(await kind.status(c));
    return true;
  }
  if (action === 'unregister') {
    const status = await kind.unregister(c);
    show(
      options.wait
        ? await waitFor(
            'unregistration transaction',
            status.unregisterTxHash,
            (s) => s.releaseAt !== null || s.status === 'unregistered',
          )
        : status,
    );
    return true;
  }
  if (action === 'providers') {
    const providers = await kind.providers(c);
    ctx.print(options, providers, () =>
      providers.length === 0 ? `no ${kind.noun} providers` : providers.map(kind.describeProvider).join('\n'),
    );
    return true;
  }
  return false;
}

/** A comma-separated list of distinct values from `allowed`. */
export function listOption<T extends string>(value: unknown, flag: string, allowed: readonly T[]): T[] {
  const text = optionText(value, flag);
  if (text === undefined)
    throw new UsageError(`${flag} is required (one or more of ${allowed.join(', ')}, comma-separated)`);
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError(`${flag}: give at least one of ${allowed.join(', ')}`);
  for (const item of items)
    if (!allowed.includes(item as T)) throw new UsageError(`${flag}: "${item}" is not one of ${allowed.join(', ')}`);
  if (new Set(items).size !== items.length) throw new UsageError(`${flag}: a value is given twice`);
  return items as T[];
}

/** A positive decimal number as typed (capacity in GB). */
export function positiveNumberOption(value: unknown, flag: string): number {
  const text = optionText(value, flag);
  if (text === undefined) throw new UsageError(`${flag} is required`);
  if (!/^(0|[1-9]\d*)(\.\d+)?$/.test(text) || !(Number(text) > 0))
    throw new UsageError(`${flag}: expected a positive number like 250 or 0.5, got "${text}"`);
  return Number(text);
}

/** A bond as the decimal text typed (the node converts it without floating point). */
export function bondOption(value: unknown): string {
  return formatAmountShort(amountOption(value, '--bond', 'OGT'));
}

/** Polls the status until `done` holds, up to a minute. */
async function waitUntil<T>(read: () => Promise<T>, done: (status: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await read();
    if (done(status) || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function describeRegistration(kind: string, s: RegistrationStatus, extra: string): string {
  if (s.status === 'unregistered') return `${kind}: unregistered`;
  return `${kind}: ${s.status}${s.releaseAt !== null ? ` (unbonding: the bond returns at block ${s.releaseAt})` : ''}\noperator  ${s.operator}\nbond      ${s.bond_ogt} OGT\n${extra}`;
}
