import { sha256 } from '@noble/hashes/sha2.js';
import { utf8 } from '../../../sdk/bytes.js';
import type { BlockContext } from '../../../chain/contract.js';
import { isPast } from '../../../chain/deadline.js';
import { appendIndexed, drainIndexed, type ReadState, type WriteState } from '../../../chain/state/indexed.js';
import { segmentCount } from '../../../objects/commitment.js';
import { slashBond, type ProviderKind } from '../../providers/registry.js';
import { DEAL_PARAMS } from './params.js';
import { encode } from '../../../sdk/encoding.js';
import {
  addCommitted,
  boundaryIndex,
  dealRetention,
  dealSchedule,
  objectDeals,
  objectDealsKey,
  readDeal,
  writeDeal,
  type DealRecord,
  type DealReplica,
} from './state.js';

/**
 * The deals' end of block, on every node:
 * - a pending deal whose acceptance window has passed is refunded (naming who did not accept);
 * - at each period boundary of an active deal, a challenge still open is a fault — the period's pay
 *   stays in escrow, the provider loses 1% of its storage bond to the client, and after 3 faults the
 *   replica is faulty — then each replica gets a new challenge: segments drawn from the parent block
 *   hash, the deal, the provider and the period;
 * - at the last boundary, the end of the term, the deal closes: what is left in escrow (the pay of
 *   failed periods) returns to the client and the providers' room is freed;
 * - a deal that ended `dealRecordBlocks` ago leaves the state, and its object's list of deals.
 */
export function dealsEndBlock(ctx: BlockContext, kind: ProviderKind): void {
  const read: ReadState = (key) => ctx.readState(key);
  const write: WriteState = (key, value) => ctx.writeState(key, value);
  dealRetention.forgetDue(read, write, ctx.height, (dealId) => {
    const cid = readDeal(read, dealId)?.cid;
    if (cid === undefined) return;
    const others = objectDeals(read, cid).filter((id) => id !== dealId);
    write(objectDealsKey(cid), others.length > 0 ? encode(others) : undefined);
  });
  for (const dealId of new Set(dealSchedule.drainDue(read, write, ctx.timestamp))) {
    const deal = readDeal(read, dealId);
    if (deal?.status !== 'pending') continue;
    if (!isPast(ctx, deal.acceptBy)) {
      // Its time came but not its height: look again a second later.
      dealSchedule.scheduleAt(read, write, ctx.timestamp + 1000, dealId);
      continue;
    }
    const missing = deal.providers.filter((r) => r.acceptedAt === undefined).map((r) => r.provider);
    release(ctx, deal, 'failed', `not accepted in time by ${missing.join(', ')}`, read, write);
    ctx.credit(deal.client as never, 'OMC', BigInt(deal.escrow));
    deal.escrow = '0';
    writeDeal(write, deal);
  }
  for (const dealId of drainIndexed(read, write, boundaryIndex(ctx.height))) {
    const deal = readDeal(read, dealId);
    if (deal?.status !== 'active') continue;
    for (const replica of deal.providers) if (replica.challenge) fault(ctx, kind, deal, replica);
    if (ctx.height >= deal.endBlock!) closeDeal(ctx, deal, read, write);
    else {
      const period = deal.periods ?? 0;
      for (const replica of deal.providers)
        if (!replica.faulty)
          replica.challenge = {
            period,
            issuedAt: ctx.height,
            indexes: challengeIndexes(ctx.parentHash, deal, replica.provider, period),
          };
      deal.periods = period + 1;
      appendIndexed(
        read,
        write,
        boundaryIndex(Math.min(ctx.height + DEAL_PARAMS.proofPeriodBlocks, deal.endBlock!)),
        deal.dealId,
      );
    }
    writeDeal(write, deal);
  }
}

/** The segments a challenge asks for: drawn from a hash every node computes alike, none twice. */
export function challengeIndexes(
  parentHash: string,
  deal: Pick<DealRecord, 'dealId' | 'size'>,
  provider: string,
  period: number,
): number[] {
  const segments = segmentCount(deal.size);
  const indexes: number[] = [];
  for (let i = 0; indexes.length < Math.min(DEAL_PARAMS.segmentsPerChallenge, segments); i++) {
    const digest = sha256(utf8(`${parentHash}|${deal.dealId}|${provider}|${period}|${i}`));
    const index = Number(new DataView(digest.buffer, digest.byteOffset).getBigUint64(0) % BigInt(segments));
    if (!indexes.includes(index)) indexes.push(index);
  }
  return indexes;
}

/** A missed or failed proof: the challenge is closed, the provider slashed to the client, and after `maxFaults` the replica is faulty. */
export function fault(ctx: BlockContext, kind: ProviderKind, deal: DealRecord, replica: DealReplica): void {
  delete replica.challenge;
  replica.faults = (replica.faults ?? 0) + 1;
  if (replica.faults >= DEAL_PARAMS.maxFaults) replica.faulty = true;
  slashBond(ctx, kind, replica.provider, DEAL_PARAMS.faultSlashPerMille, deal.client);
}

/** The end of a deal's term: what is left in escrow (the pay of failed periods) returns to the client, the providers' room is freed. */
export function closeDeal(ctx: BlockContext, deal: DealRecord, read: ReadState, write: WriteState): void {
  ctx.credit(deal.client as never, 'OMC', BigInt(deal.escrow));
  deal.escrow = '0';
  release(ctx, deal, 'closed', undefined, read, write);
}

function release(
  ctx: BlockContext,
  deal: DealRecord,
  status: 'failed' | 'closed',
  reason: string | undefined,
  read: ReadState,
  write: WriteState,
): void {
  for (const replica of deal.providers) addCommitted(read, write, replica.provider, -deal.size);
  deal.status = status;
  deal.reason = reason;
  deal.closedAt = ctx.height;
  dealRetention.settled(read, write, ctx.height, deal.dealId);
}
