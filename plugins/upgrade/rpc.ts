import Type from 'typebox';
import type { MethodFactory, RpcMethod } from '../../kernel/plugin.js';
import type { UpgradeService } from './service.js';

const Address = Type.String({ pattern: '^svc1[0-9a-f]{40}$' });

export const UpgradePlanSchema = Type.Union(
  [
    Type.Object(
      {
        planId: Type.Integer({ minimum: 1 }),
        name: Type.String(),
        version: Type.Integer({ minimum: 1, description: 'the chain-rules version the plan runs' }),
        height: Type.Integer({ minimum: 1, description: 'the first block that runs it' }),
        proposer: Address,
        proposedAt: Type.Integer({ description: 'the block that holds the proposal' }),
        approvals: Type.Array(Address, { description: 'operators of the validators that approved it' }),
        approvedStake: Type.String({
          description: "OGT of the approvals in the set's power (pending: now; adopted: when it was adopted)",
        }),
        bondedStake: Type.String({ description: "OGT: the set's whole power, on the same terms" }),
        adopted: Type.Boolean({
          description:
            'adopted: approvals held more than 2/3 of the power before its height, and the schedule holds it',
        }),
        adoptedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'the block that adopted it' }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'the plan pending, else the last adopted, else null' },
);

export function upgradeMethods(method: MethodFactory<UpgradeService>): RpcMethod[] {
  return [
    method({
      name: 'svc_getUpgradePlan',
      summary:
        "The upgrade plan pending (with the power of its approvals now), else the last one adopted, else null. The whole schedule of rules versions is `svc_chainInfo`'s `rulesSchedule`.",
      params: [],
      result: UpgradePlanSchema,
      handler: (_params, { service }) => service.plan(),
    }),
  ];
}
