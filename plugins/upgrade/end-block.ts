import type { BlockContext } from '../../chain/contract.js';
import { RULES_SCHEDULE_KEY, RulesSchedule } from '../../chain/rules-schedule.js';
import { isAdopting, weigh, type ValidatorSets } from './service.js';
import { ADOPTED_KEY, encodePlan, PENDING_KEY, readPending } from './state.js';

/**
 * At the end of every block: the pending plan is adopted once its approvals hold more than 2/3 of the
 * power of the set that governs the next block (weighed anew each block, so a set that changes at an
 * epoch's end counts as it now is) — its version joins the chain's schedule from its height. A plan
 * still pending at the end of the block before its height can no longer take effect there: it lapses.
 */
export function upgradeEndBlock(ctx: BlockContext, sets: ValidatorSets): void {
  const read = (key: string): Uint8Array | undefined => ctx.readState(key);
  const pending = readPending(read);
  if (!pending) return;
  const weight = weigh(pending, sets.setFor(read, ctx.height + 1));
  if (ctx.height < pending.height && isAdopting(weight)) {
    const schedule = RulesSchedule.of({ get: read }).with({ version: pending.version, height: pending.height });
    ctx.writeState(RULES_SCHEDULE_KEY, schedule.encodeUpgrades());
    ctx.writeState(
      ADOPTED_KEY,
      encodePlan({
        ...pending,
        adoptedAt: ctx.height,
        approvedStake: weight.approved.toString(),
        bondedStake: weight.bonded.toString(),
      }),
    );
    ctx.writeState(PENDING_KEY, undefined);
    return;
  }
  if (ctx.height >= pending.height - 1) ctx.writeState(PENDING_KEY, undefined);
}
