import Type, { type Static, type TObject, type TProperties } from 'typebox';
import type { Address } from '../../sdk/address.js';
import { formatAmountShort } from '../../sdk/amount.js';
import { decode, encode } from '../../sdk/encoding.js';
import { GenesisError } from '../../chain/genesis.js';
import type { GenesisParameters } from '../../chain/contract.js';
import { TxFailure, type BlockContext, type TxContext, type TxKind, type TxKindFactory } from '../../chain/contract.js';

/**
 * Bonded provider registrations as chain state, shared by the `compute` and `omp-storage` plugins.
 * Each plugin owns its keys (`<plugin>/...`, docs/providers.md):
 * - `<plugin>/providers/<operator>` -> CBOR record
 * - `<plugin>/index` -> CBOR list of registered operators (sorted)
 * - `<plugin>/unbonding` -> CBOR list of `[operator, release height]`
 */
export interface ProviderKind<D extends TObject = TObject> {
  /** The plugin that owns the state and the transaction kinds (`<plugin>.register`, `<plugin>.unregister`). */
  readonly plugin: string;
  /** The account's bonded-balance purpose the bond is recorded under. */
  readonly purpose: string;
  /** Smallest bond, in OGT base units. */
  readonly minimumBond: bigint;
  /** What a registration declares besides the bond (capabilities, capacity, ...), CBOR-friendly. */
  readonly details: D;
}

/** A provider's record; `Details` is its kind's registration details (`DetailsOf<typeof OON>`). */
export interface ProviderRecord<Details = Record<string, unknown>> {
  readonly operator: Address;
  readonly peerId: string;
  /** OGT base units, decimal. */
  readonly bond: string;
  readonly details: Details;
  readonly registeredAt: number;
  /** Height at which the bond is released, once unregistering. */
  readonly releaseAt?: number;
}

/** A kind whose registrations record exactly `details` besides the bond: no other field enters consensus state. */
export function providerKind<P extends TProperties>(
  kind: Omit<ProviderKind, 'details'> & { readonly details: P },
): ProviderKind<TObject<P>> {
  return { ...kind, details: Type.Object(kind.details, { additionalProperties: false }) };
}

/** The registration details of a kind, as its schema types them. */
export type DetailsOf<K extends ProviderKind> = Static<K['details']>;

/**
 * Blocks a provider bond stays locked after unregistering: a consensus parameter in the genesis state,
 * shared by the compute and storage registries (each puts it in block 0; they agree).
 */
export const UNBONDING_BLOCKS_KEY = 'params/unbondingBlocks';
/** Devnet: 20 blocks (a minute at 3 s blocks). Other networks default to about 3.5 days at 3 s. */
const DEVNET_UNBONDING_BLOCKS = 20;
const DEFAULT_UNBONDING_BLOCKS = 100_800;

/** The registries' genesis entry: the unbonding period, from the genesis file's `"unbondingBlocks"`. */
export function unbondingGenesis({ network, params }: GenesisParameters): [string, Uint8Array][] {
  const blocks = params.unbondingBlocks ?? (network === 'devnet' ? DEVNET_UNBONDING_BLOCKS : DEFAULT_UNBONDING_BLOCKS);
  if (!Number.isSafeInteger(blocks) || (blocks as number) < 1)
    throw new GenesisError('genesis "unbondingBlocks" must be a positive integer');
  return [[UNBONDING_BLOCKS_KEY, encode(blocks)]];
}

const UnitsString = Type.String({ pattern: '^[1-9][0-9]{0,77}$' });

export function registerPayloadSchema(kind: ProviderKind) {
  return Type.Object(
    { peerId: Type.String({ minLength: 1, maxLength: 128 }), bond: UnitsString, details: kind.details },
    { additionalProperties: false },
  );
}
const UnregisterPayload = Type.Object({}, { additionalProperties: false });

export const recordKey = (kind: ProviderKind, operator: string): string => `${kind.plugin}/providers/${operator}`;
export const indexKey = (kind: ProviderKind): string => `${kind.plugin}/index`;
const unbondingKey = (kind: ProviderKind): string => `${kind.plugin}/unbonding`;

/** Reads a consensus state key (a block's context, or the node's world state at the head). */
export type ReadState = (key: string) => Uint8Array | undefined;

export function readRecord<D extends TObject>(
  read: ReadState,
  kind: ProviderKind<D>,
  operator: string,
): ProviderRecord<Static<D>> | undefined {
  const raw = read(recordKey(kind, operator));
  // The registration's transaction checked its details against `kind.details` before it was written.
  return raw ? decode<ProviderRecord<Static<D>>>(raw) : undefined;
}

/** Takes `perMille` of a provider's bond (from its record and its account's bonded balance) to `beneficiary`'s OGT. */
export function slashBond(
  ctx: BlockContext,
  kind: ProviderKind,
  operator: string,
  perMille: bigint,
  beneficiary: string,
): void {
  const record = readRecord((key) => ctx.readState(key), kind, operator);
  if (!record) return;
  const amount = (BigInt(record.bond) * perMille) / 1000n;
  if (amount === 0n) return;
  writeRecord(ctx, kind, { ...record, bond: (BigInt(record.bond) - amount).toString() });
  const account = ctx.account(record.operator);
  account.bonded[kind.purpose] = (account.bonded[kind.purpose] ?? 0n) - amount;
  ctx.setAccount(record.operator, account);
  ctx.credit(beneficiary as never, 'OGT', amount);
}

/** Rewrites a provider's record (its bond after a slash). */
export function writeRecord(ctx: BlockContext, kind: ProviderKind, record: ProviderRecord<unknown>): void {
  ctx.writeState(recordKey(kind, record.operator), encode(record));
}

function readList<T>(read: ReadState, key: string): T[] {
  const raw = read(key);
  return raw ? decode<T[]>(raw) : [];
}

/** Every registered provider (also those unbonding), in operator order. */
export function readProviders<D extends TObject>(read: ReadState, kind: ProviderKind<D>): ProviderRecord<Static<D>>[] {
  return readList<string>(read, indexKey(kind))
    .map((operator) => readRecord(read, kind, operator))
    .filter((record): record is ProviderRecord<Static<D>> => record !== undefined);
}

const reader =
  (ctx: BlockContext): ReadState =>
  (key) =>
    ctx.readState(key);

function writeList(ctx: BlockContext, key: string, list: readonly unknown[]): void {
  ctx.writeState(key, list.length > 0 ? encode(list) : undefined);
}

/** `<plugin>.register` and `<plugin>.unregister`: the bond moves between the operator's OGT and its bonded balance. */
export function providerTxKinds<Svc>(kind: ProviderKind, factory: TxKindFactory<Svc>): TxKind[] {
  const RegisterPayload = registerPayloadSchema(kind);
  return [
    factory({
      kind: `${kind.plugin}.register`,
      summary: `registers the signer as a ${kind.plugin} provider, moving the bond from its OGT into its bonded balance`,
      payload: RegisterPayload,
      debits: (payload) => [{ asset: 'OGT', amount: BigInt(payload.bond) }],
      execute(ctx: TxContext<Static<typeof RegisterPayload>>) {
        const operator = ctx.tx.from;
        if (readRecord(reader(ctx), kind, operator))
          throw new TxFailure('already_registered', `${operator} is already a registered ${kind.plugin} provider`);
        const bond = BigInt(ctx.payload.bond);
        if (bond < kind.minimumBond)
          throw new TxFailure(
            'bond_too_low',
            `a ${kind.plugin} bond is at least ${formatAmountShort(kind.minimumBond)} OGT`,
          );
        ctx.debit(operator, 'OGT', bond);
        const account = ctx.account(operator);
        account.bonded[kind.purpose] = (account.bonded[kind.purpose] ?? 0n) + bond;
        ctx.setAccount(operator, account);
        const record: ProviderRecord = {
          operator,
          peerId: ctx.payload.peerId,
          bond: bond.toString(),
          details: ctx.payload.details,
          registeredAt: ctx.height,
        };
        ctx.writeState(recordKey(kind, operator), encode(record));
        writeList(ctx, indexKey(kind), [...readList<string>(reader(ctx), indexKey(kind)), operator].sort());
      },
    }),
    factory({
      kind: `${kind.plugin}.unregister`,
      summary: `starts unbonding the signer's ${kind.plugin} bond; it returns to its OGT after the genesis unbonding period`,
      payload: UnregisterPayload,
      execute(ctx: TxContext<Static<typeof UnregisterPayload>>) {
        const operator = ctx.tx.from;
        const record = readRecord(reader(ctx), kind, operator);
        if (!record) throw new TxFailure('not_found', `${operator} is not a registered ${kind.plugin} provider`);
        if (record.releaseAt !== undefined)
          throw new TxFailure(
            'already_registered',
            `${operator} is already unbonding (release at block ${record.releaseAt})`,
          );
        const period = decode<number>(ctx.readState(UNBONDING_BLOCKS_KEY)!);
        const releaseAt = ctx.height + period;
        ctx.writeState(recordKey(kind, operator), encode({ ...record, releaseAt }));
        writeList(ctx, unbondingKey(kind), [
          ...readList<[string, number]>(reader(ctx), unbondingKey(kind)),
          [operator, releaseAt],
        ]);
      },
    }),
  ];
}

/** End of block: bonds whose unbonding period is over go back to their operators' OGT. */
export function releaseBonds(ctx: BlockContext, kind: ProviderKind): void {
  const unbonding = readList<[string, number]>(reader(ctx), unbondingKey(kind));
  const due = unbonding.filter(([, at]) => at <= ctx.height);
  if (due.length === 0) return;
  for (const [operator] of due) {
    const record = readRecord(reader(ctx), kind, operator)!;
    const bond = BigInt(record.bond);
    const account = ctx.account(record.operator);
    account.bonded[kind.purpose] = (account.bonded[kind.purpose] ?? 0n) - bond;
    account.ogt += bond;
    ctx.setAccount(record.operator, account);
    ctx.writeState(recordKey(kind, operator), undefined);
  }
  const released = new Set(due.map(([operator]) => operator));
  writeList(
    ctx,
    unbondingKey(kind),
    unbonding.filter(([operator]) => !released.has(operator)),
  );
  writeList(
    ctx,
    indexKey(kind),
    readList<string>(reader(ctx), indexKey(kind)).filter((operator) => !released.has(operator)),
  );
}
