import Type, { type Static } from 'typebox';
import { TxFailure, type TxContext, type TxKind, type TxKindFactory } from '../../chain/contract.js';
import { RulesSchedule } from '../../chain/rules-schedule.js';
import { encode } from '../../sdk/encoding.js';
import type { UpgradeService } from './service.js';
import { encodePlan, NEXT_ID_KEY, PENDING_KEY, readAdopted, readNextId, readPending } from './state.js';

/** The first rules version with upgrade plans: before it, their kinds are unknown. */
export const UPGRADE_PLANS_SINCE = 6;

const ProposePayload = Type.Object(
  {
    version: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1, description: 'the chain-rules version to run' }),
    height: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'the first block to run it: the plan must be adopted before',
    }),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'a label' }),
    ),
  },
  { additionalProperties: false },
);
const ApprovePayload = Type.Object({ planId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

const refused = (reason: string): TxFailure => new TxFailure('upgrade_refused', reason);

/** The signer must be in the validator set governing this block. */
function checkValidator(ctx: TxContext<unknown>, service: UpgradeService, what: string): void {
  const set = service.sets.setFor((key) => ctx.readState(key), ctx.height);
  if (!set.some((v) => v.operator === ctx.tx.from))
    throw new TxFailure('not_validator', `${ctx.tx.from} is not in the validator set: only validators ${what}`);
}

function propose(ctx: TxContext<Static<typeof ProposePayload>>, service: UpgradeService): void {
  checkValidator(ctx, service, 'propose upgrades');
  const read = (key: string): Uint8Array | undefined => ctx.readState(key);
  const pending = readPending(read);
  if (pending)
    throw refused(
      `plan ${pending.planId} (version ${pending.version} from block ${pending.height}) is pending: approve it, or propose once its height has passed`,
    );
  const { version, height } = ctx.payload;
  const newest = RulesSchedule.of({ get: read }).newest;
  if (version <= newest.version)
    throw refused(
      `version ${version} is not above ${newest.version}, the newest the schedule holds (from block ${newest.height})`,
    );
  if (height <= ctx.height)
    throw refused(`block ${height} is not ahead of this one (${ctx.height}): a plan is adopted before its height`);
  if (height <= newest.height)
    throw refused(`block ${height} is not after block ${newest.height}, where version ${newest.version} starts`);
  const planId = readNextId(read);
  ctx.writeState(NEXT_ID_KEY, encode(planId + 1));
  ctx.writeState(
    PENDING_KEY,
    encodePlan({
      planId,
      name: ctx.payload.name ?? `v${version}`,
      version,
      height,
      proposer: ctx.tx.from,
      proposedAt: ctx.height,
      approvals: [ctx.tx.from],
    }),
  );
}

function approve(ctx: TxContext<Static<typeof ApprovePayload>>, service: UpgradeService): void {
  checkValidator(ctx, service, 'approve upgrades');
  const read = (key: string): Uint8Array | undefined => ctx.readState(key);
  const { planId } = ctx.payload;
  const pending = readPending(read);
  if (!pending || pending.planId !== planId) {
    const adopted = readAdopted(read);
    throw new TxFailure(
      'not_found',
      adopted?.planId === planId
        ? `plan ${planId} was adopted at block ${adopted.adoptedAt}: nothing to approve`
        : `no plan ${planId} is pending${pending ? ` (plan ${pending.planId} is)` : ''}`,
    );
  }
  if (pending.approvals.includes(ctx.tx.from)) throw refused(`${ctx.tx.from} has approved plan ${planId} already`);
  ctx.writeState(PENDING_KEY, encodePlan({ ...pending, approvals: [...pending.approvals, ctx.tx.from] }));
}

export function upgradeTxKinds(kind: TxKindFactory<UpgradeService>): readonly TxKind[] {
  return [
    kind({
      kind: 'upgrade.propose',
      summary:
        "A validator proposes that the chain run rules version `version` from block `height` (its own approval counted); adopted once approvals hold more than 2/3 of the set's power before that height.",
      payload: ProposePayload,
      sinceRulesVersion: UPGRADE_PLANS_SINCE,
      execute: propose,
    }),
    kind({
      kind: 'upgrade.approve',
      summary: 'A validator approves the pending upgrade plan `planId`.',
      payload: ApprovePayload,
      sinceRulesVersion: UPGRADE_PLANS_SINCE,
      execute: approve,
    }),
  ];
}
