import Type, { type Static } from 'typebox';
import type { DealRecord } from './state.js';

const Nullable = <T extends ReturnType<typeof Type.Integer>>(schema: T) => Type.Union([schema, Type.Null()]);

export const DealViewSchema = Type.Object(
  {
    dealId: Type.String(),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('active'),
      Type.Literal('closed'),
      Type.Literal('failed'),
    ]),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'why it waits or failed' }),
    cid: Type.String(),
    size: Type.Integer(),
    format: Type.String(),
    mediaType: Type.String(),
    client: Type.String(),
    replicas: Type.Integer(),
    providers: Type.Array(
      Type.Object(
        {
          provider: Type.String(),
          acceptedAt: Nullable(Type.Integer()),
          lastProof: Nullable(Type.Integer({ description: 'block of its last passed proof' })),
          faults: Type.Integer({ description: 'challenges it missed or failed' }),
          faulty: Type.Boolean({ description: 'too many faults: no longer challenged, paid or read from' }),
          paid: Type.String({ description: 'OMC base units paid to it' }),
          challenge: Type.Union(
            [
              Type.Object(
                { period: Type.Integer(), issuedAt: Type.Integer(), indexes: Type.Array(Type.Integer()) },
                { additionalProperties: false },
              ),
              Type.Null(),
            ],
            { description: 'its open challenge' },
          ),
        },
        { additionalProperties: false },
      ),
    ),
    durationBlocks: Type.Integer(),
    createdAt: Type.Integer(),
    acceptBy: Type.Object(
      { height: Type.Integer(), time: Type.Integer() },
      {
        additionalProperties: false,
        description: 'the providers accept by then (block and time), or the deal is refunded',
      },
    ),
    startBlock: Nullable(Type.Integer()),
    endBlock: Nullable(Type.Integer()),
    price: Type.String({ description: 'OMC base units per replica for the term' }),
    escrow: Type.String({ description: 'OMC base units still held' }),
    paid: Type.String({ description: 'OMC base units paid to providers' }),
    lastProof: Nullable(Type.Integer({ description: 'block of the last passed proof of storage, of any provider' })),
    faults: Type.Integer({ description: 'challenges missed or failed, all providers together' }),
  },
  { additionalProperties: false },
);
export type DealView = Static<typeof DealViewSchema>;

export function dealView(deal: DealRecord): DealView {
  return {
    dealId: deal.dealId,
    status: deal.status,
    reason: deal.reason ?? null,
    cid: deal.cid,
    size: deal.size,
    format: deal.format,
    mediaType: deal.mediaType,
    client: deal.client,
    replicas: deal.replicas,
    providers: deal.providers.map((r) => ({
      provider: r.provider,
      acceptedAt: r.acceptedAt ?? null,
      lastProof: r.lastProof ?? null,
      faults: r.faults ?? 0,
      faulty: r.faulty === true,
      paid: r.paid ?? '0',
      challenge: r.challenge ?? null,
    })),
    durationBlocks: deal.durationBlocks,
    createdAt: deal.createdAt,
    acceptBy: deal.acceptBy,
    startBlock: deal.startBlock ?? null,
    endBlock: deal.endBlock ?? null,
    price: deal.price,
    escrow: deal.escrow,
    paid: deal.paid,
    lastProof: deal.providers.reduce<number | null>(
      (last, r) => (r.lastProof !== undefined && (last === null || r.lastProof > last) ? r.lastProof : last),
      null,
    ),
    faults: deal.providers.reduce((sum, r) => sum + (r.faults ?? 0), 0),
  };
}

export const ObjectViewSchema = Type.Object(
  {
    cid: Type.String(),
    size: Type.Integer(),
    mediaType: Type.String(),
    format: Type.String(),
    deals: Type.Array(Type.String(), { description: 'ids of the deals that stored it, oldest first' }),
    providers: Type.Array(Type.String(), {
      description: 'providers of its active deals that accepted it and are not faulty: where to read it',
    }),
  },
  { additionalProperties: false },
);
export type ObjectView = Static<typeof ObjectViewSchema>;

/** An object as the chain knows it: from its deals (newest first for size and type, which every deal of one CID shares). */
export function objectView(cid: string, deals: readonly DealRecord[]): ObjectView | undefined {
  const latest = deals.at(-1);
  if (!latest) return undefined;
  const providers = new Set<string>();
  for (const deal of deals)
    if (deal.status === 'active')
      for (const r of deal.providers) if (r.acceptedAt !== undefined && !r.faulty) providers.add(r.provider);
  return {
    cid,
    size: latest.size,
    mediaType: latest.mediaType,
    format: latest.format,
    deals: deals.map((d) => d.dealId),
    providers: [...providers],
  };
}
