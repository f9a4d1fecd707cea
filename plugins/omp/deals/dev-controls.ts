import Type, { type Static } from 'typebox';
import type { TxKind, TxKindFactory } from '../../../chain/contract.js';
import { devKindGuards, type DevRefusal } from '../../../chain/dev-kinds.js';
import type { ReadState, WriteState } from '../../../chain/state/indexed.js';
import type { ProviderKind } from '../../providers/registry.js';
import type { OmpRegistry } from './capability.js';
import { closeDeal, fault } from './end-block.js';
import { readDeal, writeDeal } from './state.js';

export const DEV_DEAL_KIND = 'omp.dev';
/** The rules version from which dev mode's deal controls exist. */
export const DEV_DEAL_CONTROLS_SINCE = 7;

export const DevDealPayload = Type.Object(
  {
    dealId: Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'the deal' }),
    action: Type.Union([Type.Literal('missProof'), Type.Literal('end')], {
      description:
        "missProof: each replica that is not faulty misses its proof now, as at a period's end with its challenge unanswered; end: the deal's term ends now",
    }),
  },
  { additionalProperties: false },
);
export type DevDealAction = Static<typeof DevDealPayload>;

const refusal: DevRefusal<DevDealAction> = ({ dealId }, read) => {
  const deal = readDeal(read, dealId);
  if (!deal) return { error: 'not_found', reason: `no deal ${dealId}` };
  if (deal.status !== 'active')
    return {
      error: 'invalid_params',
      reason: `deal ${dealId} is ${deal.status}: only an active deal can miss a proof or end`,
    };
  return undefined;
};
const guards = devKindGuards(DEV_DEAL_KIND, refusal);

/**
 * Dev mode's deal controls (`svc_devMissProof`, `svc_devEndDeal`) as a transaction kind: a missed proof
 * goes through the chain's own fault step (the provider slashed to the client, the replica faulty after
 * its third), and the end through the step that closes a deal at the end of its term (the escrow left
 * back to the client). Valid only on the devnet and signed by its validator, admitted only in dev mode.
 */
export function devDealKind(factory: TxKindFactory<OmpRegistry>, kind: ProviderKind): TxKind {
  return factory({
    kind: DEV_DEAL_KIND,
    summary: "dev mode: a deal's providers miss a proof now, or its term ends now (signed by the devnet's validator)",
    payload: DevDealPayload,
    sinceRulesVersion: DEV_DEAL_CONTROLS_SINCE,
    authorize: guards.authorize,
    admit: guards.admit,
    execute(ctx) {
      const read: ReadState = (key) => ctx.readState(key);
      const write: WriteState = (key, value) => ctx.writeState(key, value);
      guards.check(ctx.payload, read);
      const deal = readDeal(read, ctx.payload.dealId);
      if (ctx.payload.action === 'missProof') {
        for (const replica of deal!.providers) if (!replica.faulty) fault(ctx, kind, deal!, replica);
      } else {
        deal!.endBlock = ctx.height;
        closeDeal(ctx, deal!, read, write);
      }
      writeDeal(write, deal!);
    },
  });
}
