import { formatAmountShort } from '../../sdk/amount.js';
import type { UpgradePlanView } from '../../sdk/views.js';
import type { ChainReader } from '../../chain/capabilities.js';
import { totalPower, type PrioritizedValidator } from '../../consensus/validator-set.js';
import type { StakingService } from '../staking/service.js';
import { readAdopted, readPending, type PlanRecord } from './state.js';

/** What the upgrade plans read of staking: the set that governs a block, from a state read in it. */
export type ValidatorSets = Pick<StakingService, 'setFor'>;

/** The power of a plan's approvals within `set`, and the set's. */
export function weigh(plan: PlanRecord, set: readonly PrioritizedValidator[]): { approved: bigint; bonded: bigint } {
  const approvers = new Set(plan.approvals);
  return {
    approved: set.filter((v) => approvers.has(v.operator)).reduce((sum, v) => sum + v.power, 0n),
    bonded: totalPower(set),
  };
}

/** More than 2/3 of the set's power: what adopts a plan (and decides a block). */
export const isAdopting = ({ approved, bonded }: { approved: bigint; bonded: bigint }): boolean =>
  approved * 3n > bonded * 2n;

export class UpgradeService {
  constructor(
    readonly sets: ValidatorSets,
    private readonly chain: ChainReader,
  ) {}

  /** `svc_getUpgradePlan`: the plan pending, else the last adopted, else null. */
  plan(): UpgradePlanView | null {
    const read = (key: string): Uint8Array | undefined => this.chain.state.get(key);
    const pending = readPending(read);
    if (pending) {
      const weight = weigh(pending, this.sets.setFor(read, this.chain.head.height + 1));
      return {
        ...this.common(pending),
        approvedStake: formatAmountShort(weight.approved),
        bondedStake: formatAmountShort(weight.bonded),
        adopted: false,
        adoptedAt: null,
      };
    }
    const adopted = readAdopted(read);
    if (!adopted) return null;
    return {
      ...this.common(adopted),
      approvedStake: formatAmountShort(BigInt(adopted.approvedStake)),
      bondedStake: formatAmountShort(BigInt(adopted.bondedStake)),
      adopted: true,
      adoptedAt: adopted.adoptedAt,
    };
  }

  private common(
    plan: PlanRecord,
  ): Pick<UpgradePlanView, 'planId' | 'name' | 'version' | 'height' | 'proposer' | 'proposedAt' | 'approvals'> {
    return {
      planId: plan.planId,
      name: plan.name,
      version: plan.version,
      height: plan.height,
      proposer: plan.proposer as UpgradePlanView['proposer'],
      proposedAt: plan.proposedAt,
      approvals: [...plan.approvals] as UpgradePlanView['approvals'],
    };
  }
}
