import Type, { type Static } from 'typebox';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromHex, toHex, utf8 } from '../../../sdk/bytes.js';
import { SEGMENT_BYTES, verifySegment } from '../../../objects/commitment.js';
import { encode } from '../../../sdk/encoding.js';
import {
  TxFailure,
  type BlockContext,
  type TxContext,
  type TxKind,
  type TxKindFactory,
} from '../../../chain/contract.js';
import type { Address } from '../../../sdk/address.js';
import { deadlineAfter, describeDeadline, isPast } from '../../../chain/deadline.js';
import { appendIndexed, type ReadState, type WriteState } from '../../../chain/state/indexed.js';
import { readProviders, type ProviderRecord } from '../../providers/registry.js';
import type { StorageDetails, StorageKind } from '../provider-kind.js';
import { DEAL_PARAMS } from './params.js';
import {
  addCommitted,
  ALL_DEALS,
  clientIndex,
  dealSchedule,
  boundaryIndex,
  objectDeals,
  objectDealsKey,
  providerDealIndex,
  readCommitted,
  readDeal,
  writeDeal,
  type DealRecord,
} from './state.js';

/** Bytes in a GB of a registration's capacity (SI). */
const BYTES_PER_GB = 1_000_000_000;

const Units = Type.String({
  pattern: '^[1-9][0-9]{0,77}$',
  description: 'a positive whole number of OMC base units, decimal',
});

export const CreateDealPayload = Type.Object(
  {
    cid: Type.String({
      pattern: '^b[a-z2-7]{10,200}$',
      description: "the object's CIDv1 (base32), as the upload answered",
    }),
    size: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    root: Type.String({
      pattern: '^0x[0-9a-f]{64}$',
      description: "the object's storage commitment root, as the upload answered",
    }),
    format: Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('document')]),
    mediaType: Type.String({
      pattern: '^[a-z0-9.+-]+/[a-z0-9.+-]+(; ?[a-z0-9=.-]+)?$',
      maxLength: 100,
      description: 'the sniffed media type, as the upload answered',
    }),
    replicas: Type.Integer({ minimum: 1, maximum: DEAL_PARAMS.maxReplicas }),
    durationBlocks: Type.Integer({ minimum: DEAL_PARAMS.minDurationBlocks, maximum: DEAL_PARAMS.maxDurationBlocks }),
    price: Units,
    provider: Type.String({
      pattern: '^svc1[0-9a-f]{40}$',
      description: 'the storage provider the object was uploaded to: the first replica',
    }),
  },
  { additionalProperties: false },
);
const AcceptDealPayload = Type.Object(
  { dealId: Type.String({ pattern: '^0x[0-9a-f]{64}$' }) },
  { additionalProperties: false },
);
const Hex32 = Type.String({ pattern: '^0x[0-9a-f]{64}$' });
const ProveStoragePayload = Type.Object(
  {
    dealId: Hex32,
    period: Type.Integer({ minimum: 0 }),
    proofs: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0 }),
          segment: Type.String({ pattern: '^0x([0-9a-f]{2})*$', maxLength: 2 + 2 * SEGMENT_BYTES }),
          path: Type.Array(Hex32, { maxItems: 64 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: DEAL_PARAMS.segmentsPerChallenge },
    ),
  },
  { additionalProperties: false },
);

const reader =
  (ctx: TxContext<unknown>): ReadState =>
  (key) =>
    ctx.readState(key);
const writer =
  (ctx: TxContext<unknown>): WriteState =>
  (key, value) =>
    ctx.writeState(key, value);

/** Room a provider has left on chain: its declared capacity less the bytes of its pending and active deals. */
function room(read: ReadState, record: ProviderRecord<StorageDetails>): number {
  const { details } = record;
  return Math.floor(Number(details.capacityGb) * BYTES_PER_GB) - readCommitted(read, record.operator);
}

/**
 * Creates a deal: the one path of a signed `omp.createDeal` and of a contract's call to the OMP
 * precompile. Escrows price × replicas from the client; the other providers are ranked by the parent
 * block's hash and the deal id.
 */
export function createDeal(
  ctx: BlockContext,
  kind: StorageKind,
  client: Address,
  dealId: string,
  payload: Static<typeof CreateDealPayload>,
): DealRecord {
  const read: ReadState = (key) => ctx.readState(key);
  const write: WriteState = (key, value) => ctx.writeState(key, value);
  if (readDeal(read, dealId)) throw new TxFailure('invalid_params', `deal ${dealId} exists already`);
  const offering = readProviders(read, kind).filter(
    (p) => p.releaseAt === undefined && p.details.formats.includes(payload.format),
  );
  const primary = offering.find((p) => p.operator === payload.provider);
  if (!primary)
    throw new TxFailure(
      'invalid_params',
      `${payload.provider} is not an active storage provider of ${payload.format} objects`,
    );
  if (room(read, primary) < payload.size)
    throw new TxFailure(
      'capacity_exceeded',
      `${payload.provider} has ${room(read, primary)} bytes of room left, not ${payload.size}`,
    );
  const rank = (p: ProviderRecord): string => toHex(sha256(utf8(`${ctx.parentHash}|${dealId}|${p.operator}`)));
  const others = offering
    .filter((p) => p !== primary && room(read, p) >= payload.size)
    .sort((a, b) => (rank(a) < rank(b) ? -1 : 1))
    .slice(0, payload.replicas - 1);
  if (others.length < payload.replicas - 1) {
    throw new TxFailure(
      'capacity_exceeded',
      `${payload.replicas} replicas need ${payload.replicas - 1} more providers of ${payload.format} with ${payload.size} bytes of room; there are ${others.length}`,
    );
  }
  const escrow = BigInt(payload.price) * BigInt(payload.replicas);
  ctx.debit(client, 'OMC', escrow);
  const deal: DealRecord = {
    dealId,
    client,
    cid: payload.cid,
    size: payload.size,
    root: payload.root,
    format: payload.format,
    mediaType: payload.mediaType,
    replicas: payload.replicas,
    durationBlocks: payload.durationBlocks,
    price: payload.price,
    escrow: escrow.toString(),
    paid: '0',
    providers: [primary, ...others].map((p) => ({ provider: p.operator })),
    status: 'pending',
    reason: 'waiting for every provider to accept',
    createdAt: ctx.height,
    acceptBy: deadlineAfter(ctx, DEAL_PARAMS.acceptWindow),
  };
  writeDeal(write, deal);
  for (const replica of deal.providers) {
    addCommitted(read, write, replica.provider, deal.size);
    appendIndexed(read, write, providerDealIndex(replica.provider), deal.dealId);
  }
  for (const index of [ALL_DEALS, clientIndex(deal.client)]) appendIndexed(read, write, index, deal.dealId);
  ctx.writeState(objectDealsKey(deal.cid), encode([...objectDeals(read, deal.cid), deal.dealId]));
  dealSchedule.scheduleAt(read, write, deal.acceptBy.time, deal.dealId);
  return deal;
}

/** `omp.createDeal`, `omp.acceptDeal`. */
export function dealTxKinds<Svc>(factory: TxKindFactory<Svc>, kind: StorageKind): TxKind[] {
  return [
    factory({
      kind: 'omp.createDeal',
      summary:
        "stores an uploaded object for a term: escrows price × replicas OMC; the uploading provider and providers the chain chooses (format and room, ranked by the parent block hash) must accept; the deal id is this transaction's hash",
      payload: CreateDealPayload,
      debits: (payload) => [{ asset: 'OMC', amount: BigInt(payload.price) * BigInt(payload.replicas) }],
      execute: (ctx) => {
        createDeal(ctx, kind, ctx.tx.from, ctx.tx.hash, ctx.payload);
      },
    }),
    factory({
      kind: 'omp.acceptDeal',
      summary:
        'a chosen provider confirms it holds the object (checked against its CID and commitment): the deal is active once every provider has',
      payload: AcceptDealPayload,
      execute(ctx) {
        const deal = readDeal(reader(ctx), ctx.payload.dealId);
        if (!deal) throw new TxFailure('not_found', `no deal ${ctx.payload.dealId}`);
        const replica = deal.providers.find((r) => r.provider === ctx.tx.from);
        if (!replica) throw new TxFailure('invalid_params', `${ctx.tx.from} is not a provider of deal ${deal.dealId}`);
        if (deal.status !== 'pending') throw new TxFailure('invalid_params', `deal ${deal.dealId} is ${deal.status}`);
        if (replica.acceptedAt !== undefined)
          throw new TxFailure('invalid_params', `${ctx.tx.from} already accepted deal ${deal.dealId}`);
        if (isPast(ctx, deal.acceptBy))
          throw new TxFailure(
            'invalid_params',
            `the acceptance window of deal ${deal.dealId} closed at ${describeDeadline(deal.acceptBy)}`,
          );
        replica.acceptedAt = ctx.height;
        if (deal.providers.every((r) => r.acceptedAt !== undefined)) {
          deal.status = 'active';
          deal.reason = undefined;
          deal.startBlock = ctx.height;
          deal.endBlock = ctx.height + deal.durationBlocks;
          // The first boundary is this block: its end issues the first challenges.
          appendIndexed(reader(ctx), writer(ctx), boundaryIndex(ctx.height), deal.dealId);
        }
        writeDeal(writer(ctx), deal);
      },
    }),
    factory({
      kind: 'omp.proveStorage',
      summary:
        "a provider answers its open challenge on a deal: each asked segment with its Merkle path to the commitment root; a pass pays the period's share of its price",
      payload: ProveStoragePayload,
      execute(ctx) {
        const deal = readDeal(reader(ctx), ctx.payload.dealId);
        if (!deal) throw new TxFailure('not_found', `no deal ${ctx.payload.dealId}`);
        const replica = deal.providers.find((r) => r.provider === ctx.tx.from);
        if (!replica || deal.status !== 'active' || replica.faulty)
          throw new TxFailure('invalid_params', `${ctx.tx.from} holds no open challenge of deal ${deal.dealId}`);
        const challenge = replica.challenge;
        if (!challenge || challenge.period !== ctx.payload.period)
          throw new TxFailure(
            'invalid_params',
            `deal ${deal.dealId} has no open challenge of period ${ctx.payload.period} for ${ctx.tx.from}`,
          );
        const asked = ctx.payload.proofs.map((p) => p.index);
        if (asked.length !== challenge.indexes.length || asked.some((index, i) => index !== challenge.indexes[i])) {
          throw new TxFailure(
            'invalid_params',
            `the challenge asks for segments ${challenge.indexes.join(', ')}, not ${asked.join(', ')}`,
          );
        }
        const root = fromHex(deal.root);
        for (const proof of ctx.payload.proofs) {
          if (
            !verifySegment(root, deal.size, {
              index: proof.index,
              segment: fromHex(proof.segment),
              path: proof.path.map(fromHex),
            })
          ) {
            throw new TxFailure(
              'invalid_params',
              `the proof of segment ${proof.index} does not lead to the deal's commitment root`,
            );
          }
        }
        const share = periodShare(deal, challenge.issuedAt);
        ctx.credit(ctx.tx.from, 'OMC', share);
        deal.escrow = (BigInt(deal.escrow) - share).toString();
        deal.paid = (BigInt(deal.paid) + share).toString();
        replica.paid = (BigInt(replica.paid ?? '0') + share).toString();
        replica.lastProof = ctx.height;
        delete replica.challenge;
        writeDeal(writer(ctx), deal);
      },
    }),
  ];
}

/**
 * What a passed challenge pays: the deal's price for the blocks of its period. Shares telescope
 * (`price × blocks up to the period's end / term − price × blocks up to its start / term`), so the
 * periods of a term pay exactly the price, whatever the rounding.
 */
export function periodShare(
  deal: Pick<DealRecord, 'price' | 'durationBlocks' | 'startBlock' | 'endBlock'>,
  issuedAt: number,
): bigint {
  const price = BigInt(deal.price);
  const term = BigInt(deal.durationBlocks);
  const start = BigInt(issuedAt - deal.startBlock!);
  const end = BigInt(Math.min(issuedAt + DEAL_PARAMS.proofPeriodBlocks, deal.endBlock!) - deal.startBlock!);
  return (price * end) / term - (price * start) / term;
}
