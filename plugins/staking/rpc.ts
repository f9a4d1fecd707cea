import Type from 'typebox';
import { domainError } from '../../sdk/errors.js';
import { normalizeAddress } from '../../sdk/address.js';
import { AddressSchema } from '../../chain/schemas.js';
import { optionalParam, param, type MethodFactory, type RpcMethod } from '../../kernel/plugin.js';
import type { StakingService } from './service.js';

const ValidatorStatusSchema = Type.Union(
  [
    Type.Literal('pending'),
    Type.Literal('active'),
    Type.Literal('unbonding'),
    Type.Literal('jailed'),
    Type.Literal('tombstoned'),
  ],
  {
    description:
      'pending: in the set from the next epoch; active: in the set (or joining it at the next epoch); unbonding: leaving, stake returns at releaseAt; jailed: out of the set for missing blocks, `staking.unjail` from jailedUntil; tombstoned: double-signed, slashed and out for good',
  },
);

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
          proposerPriority: Type.String({
            description: 'its proposer priority after the head (integer; the highest proposes next)',
          }),
          status: ValidatorStatusSchema,
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
    stake: Type.String({ description: 'OGT (0 for the genesis validator, in the set without a stake)' }),
    status: ValidatorStatusSchema,
    inSet: Type.Boolean({ description: 'in the set in force now' }),
    genesis: Type.Boolean({ description: 'the genesis validator' }),
    createdAt: Type.Integer(),
    joinedAt: Type.Union([Type.Integer(), Type.Null()]),
    releaseAt: Type.Union([Type.Integer(), Type.Null()]),
    jailedUntil: Type.Union([Type.Integer(), Type.Null()], {
      description: 'jailed: the block from which it may unjail',
    }),
    tombstonedAt: Type.Union([Type.Integer(), Type.Null()], {
      description: 'the block whose evidence removed it for good',
    }),
    missedBlocks: Type.Integer({ description: 'certificates missing its precommit within the liveness window' }),
    livenessWindow: Type.Integer({ description: 'blocks in the liveness window' }),
    maxMissedBlocks: Type.Integer({ description: 'more misses than this in the window and it is jailed' }),
  },
  { additionalProperties: false },
);

const ConsensusStateSchema = Type.Object(
  {
    mode: Type.Union(
      [
        Type.Literal('observer'),
        Type.Literal('producing'),
        Type.Literal('consensus'),
        Type.Literal('following'),
        Type.Literal('refused'),
      ],
      {
        description:
          'observer: a node without the validator role; a validator node: producing alone, running consensus, following (its key is not in the set) or refused (another node signs with its key)',
      },
    ),
    height: Type.Integer({ description: 'the height being decided (the head + 1)' }),
    round: Type.Optional(Type.Integer()),
    step: Type.Optional(Type.Union([Type.Literal('propose'), Type.Literal('prevote'), Type.Literal('precommit')])),
    lockedRound: Type.Optional(Type.Integer({ description: '-1 when not locked' })),
    validRound: Type.Optional(Type.Integer()),
    prevotePower: Type.Optional(Type.String({ description: 'OGT of the prevotes seen this round' })),
    precommitPower: Type.Optional(Type.String({ description: 'OGT of the precommits seen this round' })),
    onlinePower: Type.Optional(
      Type.String({
        description: 'OGT of the validators heard from in the last 3 block times (at least 3 s), this one included',
      }),
    ),
    totalPower: Type.Optional(Type.String({ description: 'OGT of the whole set' })),
    lastCommit: Type.Union(
      [
        Type.Object(
          {
            height: Type.Integer(),
            round: Type.Integer(),
            signers: Type.Integer({ description: 'precommits in the certificate' }),
            signedPower: Type.String({ description: 'OGT of the validators that signed it' }),
            totalPower: Type.String({ description: 'OGT of the set that governed the block' }),
            ageMs: Type.Integer({ description: 'ms since the head block was made' }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: "the head's commit certificate as this node holds it (null at block 0)" },
    ),
  },
  { additionalProperties: false },
);

export function stakingMethods(method: MethodFactory<StakingService>): RpcMethod[] {
  return [
    method({
      name: 'svc_consensusState',
      summary:
        "Where consensus stands, on any node: the height being decided and the head's certificate (signers, their power, its age); on a validator node also its mode (producing alone, consensus, following, refused) and, running consensus, the round, step, lock, the power of the votes seen this round and of the validators heard from lately (OGT).",
      params: [],
      result: ConsensusStateSchema,
      handler: (_params, { service }) => service.consensusState(),
    }),
    method({
      name: 'svc_validators',
      summary:
        'The validator set in force at the head: each validator with its power (stake, OGT), status, proposer priority and whether it is the genesis validator; the next proposer and when the set next changes.',
      params: [
        optionalParam(
          'blockTag',
          Type.Union([Type.Literal('latest'), Type.Literal('finalized')], {
            description: '"latest" (default) or "finalized": the same under instant finality',
          }),
        ),
      ],
      result: SetSchema,
      errors: ['invalid_params'],
      handler: (_params, { service }) => service.setView(),
    }),
    method({
      name: 'svc_stakingStatus',
      summary:
        "A validator's staking record: stake, status (pending, active, unbonding, jailed, tombstoned), whether it is in the set now, its blocks, and its missed blocks in the liveness window.",
      params: [param('address', AddressSchema)],
      result: StatusSchema,
      errors: ['invalid_params', 'invalid_address', 'not_validator'],
      handler: ([address], { service }) => {
        const operator = normalizeAddress(address);
        const status = service.status(operator);
        if (!status) throw domainError('not_validator', `${operator} is not a validator`, { address: operator });
        return status;
      },
    }),
  ];
}
