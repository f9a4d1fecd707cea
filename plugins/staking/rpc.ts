import Type from 'typebox';
import { formatAmountShort } from '../../sdk/amount.js';
import { domainError } from '../../sdk/errors.js';
import { normalizeAddress } from '../../sdk/address.js';
import { AddressSchema } from '../../chain/schemas.js';
import { optionalParam, param, type MethodFactory, type RpcMethod } from '../../kernel/plugin.js';
import type { StakingService } from './service.js';

const SetSchema = Type.Object(
  {
    height: Type.Integer({ description: 'the head the answer is for' }),
    epochBlocks: Type.Integer({ description: 'blocks per epoch: the set changes only at the end of an epoch' }),
    nextChangeAt: Type.Integer({ description: 'the block at whose end the set next changes' }),
    totalPower: Type.String({ description: 'OGT' }),
    nextProposer: Type.String({ description: 'who proposes the next block (first round)' }),
    validators: Type.Array(
      Type.Object(
        {
          operator: Type.String(),
          consensusKey: Type.String(),
          moniker: Type.Union([Type.String(), Type.Null()]),
          power: Type.String({ description: 'voting power: the stake, in OGT' }),
          proposerPriority: Type.String({ description: 'its proposer priority after the head (integer; the highest proposes next)' }),
          genesis: Type.Boolean({ description: 'the genesis validator (in the set without a stake)' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const StatusSchema = Type.Object(
  {
    operator: Type.String(),
    consensusKey: Type.String(),
    moniker: Type.String(),
    stake: Type.String({ description: 'OGT' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('unbonding')], { description: 'pending: in the set from the next epoch; active: in the set (or joining it at the next epoch); unbonding: leaving, stake returns at releaseAt' }),
    inSet: Type.Boolean({ description: 'in the set in force now' }),
    createdAt: Type.Integer(),
    joinedAt: Type.Union([Type.Integer(), Type.Null()]),
    releaseAt: Type.Union([Type.Integer(), Type.Null()]),
  },
  { additionalProperties: false },
);

export function stakingMethods(method: MethodFactory<StakingService>): RpcMethod[] {
  return [
    method({
      name: 'svc_validators',
      summary: 'The validator set in force at the head: each validator with its power (stake, OGT), proposer priority and whether it is the genesis validator; the next proposer and when the set next changes.',
      params: [optionalParam('blockTag', Type.Union([Type.Literal('latest'), Type.Literal('finalized')], { description: '"latest" (default) or "finalized": the same under instant finality' }))],
      result: SetSchema,
      errors: ['invalid_params'],
      handler: (_params, { service }) => service.setView(),
    }),
    method({
      name: 'svc_stakingStatus',
      summary: "A validator's staking record: stake, status (pending, active, unbonding), whether it is in the set now, and its blocks.",
      params: [param('address', AddressSchema)],
      result: StatusSchema,
      errors: ['invalid_params', 'invalid_address', 'not_validator'],
      handler: ([address], { service }) => {
        const operator = normalizeAddress(address);
        const record = service.record(operator);
        if (!record) throw domainError('not_validator', `${operator} is not a validator`, { address: operator });
        return {
          operator,
          consensusKey: record.consensusKey,
          moniker: record.moniker,
          stake: formatAmountShort(BigInt(record.stake)),
          status: record.status,
          inSet: service.inSet(operator),
          createdAt: record.createdAt,
          joinedAt: record.joinedAt ?? null,
          releaseAt: record.releaseAt ?? null,
        };
      },
    }),
  ];
}
