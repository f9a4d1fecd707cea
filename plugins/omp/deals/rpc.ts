import Type from 'typebox';
import { normalizeAddress } from '../../../sdk/address.js';
import { domainError } from '../../../sdk/errors.js';
import { AddressSchema, BlockTagSchema, HashSchema } from '../../../chain/schemas.js';
import { decode } from '../../../sdk/encoding.js';
import { readIndexed } from '../../../chain/state/indexed.js';
import { optionalParam, param, type MethodFactory, type RpcMethod } from '../../../kernel/plugin.js';
import type { ProviderRegistry } from '../../providers/registry-service.js';
import {
  ALL_DEALS,
  clientIndex,
  dealRetention,
  objectDeals,
  providerDealIndex,
  readDeal,
  dealKey,
  type DealRecord,
} from './state.js';
import { dealView, DealViewSchema, objectView, ObjectViewSchema } from './view.js';

const CidSchema = Type.String({ pattern: '^b[a-z2-7]{10,200}$', description: 'a CIDv1 in base32' });
const ListFilter = Type.Object(
  {
    client: Type.Optional(AddressSchema),
    provider: Type.Optional(AddressSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    cursor: Type.Optional(Type.Integer({ minimum: 0, description: 'from a previous page\'s "cursor"' })),
  },
  { additionalProperties: false },
);

/** The deal and object methods every node answers (deals are chain state). */
export function dealMethods(method: MethodFactory<ProviderRegistry>): RpcMethod[] {
  const dealsOf = (service: ProviderRegistry, cid: string): DealRecord[] => {
    const read = (key: string) => service.chain.state.get(key);
    return objectDeals(read, cid).map((id) => readDeal(read, id)!);
  };
  return [
    method({
      name: 'svc_ompGetDeal',
      summary:
        'A storage deal by id: status, object, client, providers and who accepted, term, price, escrow and payments; at the head, or as it was after a past block.',
      description:
        "A past blockNumber is answered within the history window (any block on an archive node); older ones answer `pruned`. A deal's record leaves the state `dealRecordBlocks` after it closes or fails; without a blockNumber it is still answered from this node's history, and past that `pruned` (the transaction that created it is kept); an archive node keeps every record.",
      params: [param('dealId', HashSchema), optionalParam('blockNumber', BlockTagSchema)],
      result: DealViewSchema,
      errors: ['invalid_params', 'not_found', 'pruned'],
      handler: async ([dealId, tag], { service }) => {
        const id = dealId.toLowerCase();
        const height = tag === undefined ? undefined : service.chain.heightOf(tag);
        const raw =
          height === undefined
            ? await service.chain.state.lastKnownValue(dealKey(id))
            : await service.chain.stateAt(height)(dealKey(id));
        const deal = raw ? decode<DealRecord>(raw) : undefined;
        if (deal) return dealView(deal);
        if (height !== undefined) throw domainError('not_found', `no deal ${dealId} at block ${height}`, { dealId });
        const recordBlocks = dealRetention.blocks((key) => service.chain.state.get(key));
        const createdAt = await dealRetention.prunedSince(service.chain, id, 'omp.createDeal');
        if (createdAt !== undefined) {
          throw domainError(
            'pruned',
            `deal ${dealId}, created in block ${createdAt}, has left the state (an ended deal's record leaves it ${recordBlocks} blocks after it closes or fails) and this node's history: an archive node keeps it`,
            { dealId, createdAt },
          );
        }
        throw domainError(
          'not_found',
          `no deal ${dealId} in this node's state or history (an ended deal's record leaves the state ${recordBlocks} blocks after it closes or fails; an archive node keeps it)`,
          { dealId },
        );
      },
    }),
    method({
      name: 'svc_ompGetObject',
      summary:
        'An object by CID as the chain knows it: size, media type, format, its deals and the providers that hold it.',
      description:
        'Deals whose record has left the state (`dealRecordBlocks` after they ended) are no longer listed; an object with none left is `not_found`.',
      params: [param('cid', CidSchema)],
      result: ObjectViewSchema,
      errors: ['invalid_params', 'not_found'],
      handler: ([cid], { service }) => {
        const view = objectView(cid, dealsOf(service, cid));
        if (!view) throw domainError('not_found', `no deal stores ${cid}`, { cid });
        return view;
      },
    }),
    method({
      name: 'svc_ompListObjects',
      summary:
        'Objects with deals, newest deal first: of a client, of a provider, or all; pages of `limit` (default 50) deals with a cursor.',
      params: [optionalParam('filter', ListFilter)],
      result: Type.Object(
        {
          objects: Type.Array(ObjectViewSchema),
          cursor: Type.Union([Type.Integer(), Type.Null()], {
            description: 'pass it to get the next page; null at the end',
          }),
        },
        { additionalProperties: false },
      ),
      errors: ['invalid_params', 'invalid_address'],
      handler: ([filter], { service }) => {
        const read = (key: string) => service.chain.state.get(key);
        const index = filter?.client
          ? clientIndex(normalizeAddress(filter.client))
          : filter?.provider
            ? providerDealIndex(normalizeAddress(filter.provider))
            : ALL_DEALS;
        const page = readIndexed(read, index, filter?.limit ?? 50, filter?.cursor);
        // Deals that have left the state are skipped, and so are objects with no deal left in it.
        const cids = [...new Set(page.ids.flatMap((id) => readDeal(read, id)?.cid ?? []))];
        return {
          objects: cids.flatMap((cid) => objectView(cid, dealsOf(service, cid)) ?? []),
          cursor: page.next ?? null,
        };
      },
    }),
  ];
}
