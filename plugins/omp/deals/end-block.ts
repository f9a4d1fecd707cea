import type { BlockContext } from '../../../chain/contract.js';
import { isPast } from '../../../chain/deadline.js';
import { drainIndexed, type ReadState, type WriteState } from '../../../chain/state/indexed.js';
import { addCommitted, dealSchedule, endsIndex, readDeal, writeDeal, type DealRecord } from './state.js';

/**
 * The deals' end of block, on every node: a pending deal whose acceptance window has passed is
 * refunded (the providers that did not accept are named); a deal whose term ends at this height
 * closes, each provider is paid its price, and its bytes leave the providers' committed room.
 * Until proofs of storage are answered on chain, a provider is paid at the close of the term.
 */
export function dealsEndBlock(ctx: BlockContext): void {
  const read: ReadState = (key) => ctx.readState(key);
  const write: WriteState = (key, value) => ctx.writeState(key, value);
  for (const dealId of new Set(dealSchedule.drainDue(read, write, ctx.timestamp))) {
    const deal = readDeal(read, dealId);
    if (!deal || deal.status !== 'pending') continue;
    if (!isPast(ctx, deal.acceptBy)) {
      // Its time came but not its height: look again a second later.
      dealSchedule.scheduleAt(read, write, ctx.timestamp + 1000, dealId);
      continue;
    }
    const missing = deal.providers.filter((r) => r.acceptedAt === undefined).map((r) => r.provider);
    settle(ctx, deal, 'failed', `not accepted in time by ${missing.join(', ')}`, read, write);
    ctx.credit(deal.client as never, 'OMC', BigInt(deal.escrow));
    deal.escrow = '0';
    writeDeal(write, deal);
  }
  for (const dealId of drainIndexed(read, write, endsIndex(ctx.height))) {
    const deal = readDeal(read, dealId);
    if (!deal || deal.status !== 'active') continue;
    let escrow = BigInt(deal.escrow);
    for (const replica of deal.providers) {
      ctx.credit(replica.provider as never, 'OMC', BigInt(deal.price));
      escrow -= BigInt(deal.price);
    }
    deal.paid = (BigInt(deal.paid) + BigInt(deal.price) * BigInt(deal.providers.length)).toString();
    if (escrow > 0n) ctx.credit(deal.client as never, 'OMC', escrow);
    deal.escrow = '0';
    settle(ctx, deal, 'closed', undefined, read, write);
    writeDeal(write, deal);
  }
}

function settle(ctx: BlockContext, deal: DealRecord, status: 'failed' | 'closed', reason: string | undefined, read: ReadState, write: WriteState): void {
  for (const replica of deal.providers) addCommitted(read, write, replica.provider, -deal.size);
  deal.status = status;
  deal.reason = reason;
  deal.closedAt = ctx.height;
}
