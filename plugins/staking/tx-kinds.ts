import Type, { type Static } from 'typebox';
import { formatAmountShort } from '../../sdk/amount.js';
import { decode, encode } from '../../sdk/encoding.js';
import { TxFailure, type TxContext, type TxKind, type TxKindFactory } from '../../chain/contract.js';
import { UNBONDING_BLOCKS_KEY } from '../providers/registry.js';
import { DOUBLE_SIGN_SLASH_PER_MILLE, STAKE_RANGE } from './params.js';
import {
  consensusKeyIndex,
  jailedKey,
  readNumber,
  readOperators,
  readValidator,
  tombstonedKey,
  writeMissed,
  writeOperators,
  writeValidator,
  type ValidatorRecord,
} from './state.js';
import { voteSigned } from '../../consensus/messages.js';
import type { StakingService } from './service.js';

const Units = Type.String({ pattern: '^[1-9][0-9]{0,77}$', description: 'OGT base units, decimal' });
const CreatePayload = Type.Object(
  {
    consensusKey: Type.String({
      pattern: '^0x[0-9a-f]{64}$',
      description: 'the Ed25519 public key the validator signs votes and blocks with',
    }),
    stake: Units,
    moniker: Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f]+$' }),
  },
  { additionalProperties: false },
);
const AddStakePayload = Type.Object({ amount: Units }, { additionalProperties: false });
const UnbondPayload = Type.Object({}, { additionalProperties: false });
const UnjailPayload = Type.Object({}, { additionalProperties: false });
const SignedVotePayload = Type.Object(
  {
    type: Type.Union([Type.Literal('prevote'), Type.Literal('precommit')]),
    height: Type.Integer({ minimum: 1 }),
    round: Type.Integer({ minimum: 0 }),
    value: Type.Union([Type.String({ pattern: '^0x[0-9a-f]{64}$' }), Type.Null()], {
      description: 'the block hash voted for, or null (nil)',
    }),
    validator: Type.String({ pattern: '^svc1[0-9a-f]{40}$' }),
    signature: Type.String({ pattern: '^0x[0-9a-f]{128}$' }),
  },
  { additionalProperties: false },
);
const EvidencePayload = Type.Object(
  { first: SignedVotePayload, second: SignedVotePayload },
  {
    additionalProperties: false,
    description: 'two votes of one validator for one height, round and step, for different values',
  },
);

/** Why two votes are not an equivocation on their own (before any signature or state is looked at), or undefined. */
function conflictProblem({ first, second }: Static<typeof EvidencePayload>): string | undefined {
  if (first.validator !== second.validator) return 'the two votes are by different validators';
  if (first.type !== second.type || first.height !== second.height || first.round !== second.round)
    return 'the two votes are not for the same height, round and step';
  if (first.value === second.value) return 'the two votes are for the same value: no conflict';
  return undefined;
}

/** `stake_out_of_range` naming the range in whole OGT (the user's unit). */
function checkStake(stake: bigint, what: string): void {
  if (stake < STAKE_RANGE.minimum || stake > STAKE_RANGE.maximum) {
    throw new TxFailure(
      'stake_out_of_range',
      `${what} is ${formatAmountShort(stake)} OGT: a validator's stake is ${formatAmountShort(STAKE_RANGE.minimum)} to ${formatAmountShort(STAKE_RANGE.maximum)} OGT`,
      {
        minimum: Number(formatAmountShort(STAKE_RANGE.minimum)),
        maximum: Number(formatAmountShort(STAKE_RANGE.maximum)),
      },
    );
  }
}

const read = (ctx: TxContext<unknown>) => (key: string) => ctx.readState(key);
const write = (ctx: TxContext<unknown>) => (key: string, value: Uint8Array | undefined) => ctx.writeState(key, value);

function bond(ctx: TxContext<unknown>, operator: string, amount: bigint): void {
  ctx.debit(operator as never, 'OGT', amount);
  const account = ctx.account(operator as never);
  account.bonded.stake = (account.bonded.stake ?? 0n) + amount;
  ctx.setAccount(operator as never, account);
}

function validatorOf(ctx: TxContext<unknown>): ValidatorRecord {
  const record = readValidator(read(ctx), ctx.tx.from);
  if (!record)
    throw new TxFailure('not_validator', `${ctx.tx.from} is not a validator (staking.createValidator first)`);
  return record;
}

/** The consensus key a validator signs with: its record's, or the genesis validator's. */
function consensusKeyOf(ctx: TxContext<unknown>, service: StakingService, operator: string): string | undefined {
  if (operator === service.chain.genesis.validator) return service.chain.genesis.validatorKey;
  return readValidator(read(ctx), operator)?.consensusKey;
}

/** `staking.createValidator`, `staking.addStake`, `staking.unbond`, `staking.unjail`, `staking.submitEvidence`. */
export function stakingTxKinds(factory: TxKindFactory<StakingService>): TxKind[] {
  return [
    factory({
      kind: 'staking.createValidator',
      summary:
        'makes the signer a validator: its stake (15 to 28 OGT) moves into its bonded balance and is its voting power from the next epoch',
      payload: CreatePayload,
      debits: (payload) => [{ asset: 'OGT', amount: BigInt(payload.stake) }],
      admit: (payload, service) => {
        checkStake(BigInt(payload.stake), 'the stake');
        if (payload.consensusKey === service.chain.genesis.validatorKey)
          throw new TxFailure('invalid_params', "that consensus key is the genesis validator's");
      },
      execute(ctx: TxContext<Static<typeof CreatePayload>>, service) {
        const stake = BigInt(ctx.payload.stake);
        checkStake(stake, 'the stake');
        const operator = ctx.tx.from;
        if (readValidator(read(ctx), operator))
          throw new TxFailure('invalid_params', `${operator} is already a validator`);
        if (readNumber(read(ctx), tombstonedKey(operator)) !== undefined)
          throw new TxFailure(
            'invalid_params',
            `${operator} double-signed and was removed for good: it cannot be a validator again`,
          );
        if (
          ctx.payload.consensusKey === service.chain.genesis.validatorKey ||
          ctx.readState(consensusKeyIndex(ctx.payload.consensusKey))
        ) {
          throw new TxFailure('invalid_params', `the consensus key ${ctx.payload.consensusKey} is another validator's`);
        }
        bond(ctx, operator, stake);
        writeValidator(write(ctx), {
          operator,
          consensusKey: ctx.payload.consensusKey,
          moniker: ctx.payload.moniker,
          stake: stake.toString(),
          status: 'pending',
          createdAt: ctx.height,
        });
        ctx.writeState(consensusKeyIndex(ctx.payload.consensusKey), encode(operator));
        writeOperators(write(ctx), [...readOperators(read(ctx)), operator]);
      },
    }),
    factory({
      kind: 'staking.addStake',
      summary: "adds OGT to the signer's stake (up to 28 OGT in all); the power changes at the next epoch",
      payload: AddStakePayload,
      debits: (payload) => [{ asset: 'OGT', amount: BigInt(payload.amount) }],
      execute(ctx: TxContext<Static<typeof AddStakePayload>>) {
        const record = validatorOf(ctx);
        if (record.status === 'unbonding')
          throw new TxFailure(
            'invalid_params',
            `${record.operator} is unbonding (its stake returns at block ${record.releaseAt})`,
          );
        const amount = BigInt(ctx.payload.amount);
        checkStake(BigInt(record.stake) + amount, 'the stake with it');
        bond(ctx, record.operator, amount);
        record.stake = (BigInt(record.stake) + amount).toString();
        writeValidator(write(ctx), record);
      },
    }),
    factory({
      kind: 'staking.unbond',
      summary:
        'the signer leaves the validator set at the next epoch; its stake returns after the unbonding period and can be slashed until then',
      payload: UnbondPayload,
      execute(ctx) {
        const record = validatorOf(ctx);
        if (record.status === 'unbonding')
          throw new TxFailure(
            'invalid_params',
            `${record.operator} is already unbonding (its stake returns at block ${record.releaseAt})`,
          );
        record.status = 'unbonding';
        record.releaseAt = ctx.height + decode<number>(ctx.readState(UNBONDING_BLOCKS_KEY)!);
        writeValidator(write(ctx), record);
      },
    }),
    factory({
      kind: 'staking.unjail',
      summary:
        'a jailed validator (the signer) asks back in once its jail time is over: it rejoins the set at the next epoch',
      payload: UnjailPayload,
      execute(ctx) {
        const operator = ctx.tx.from;
        if (readNumber(read(ctx), tombstonedKey(operator)) !== undefined)
          throw new TxFailure(
            'invalid_params',
            `${operator} double-signed and was removed for good: it cannot come back`,
          );
        const until = readNumber(read(ctx), jailedKey(operator));
        if (until === undefined) throw new TxFailure('not_validator', `${operator} is not a jailed validator`);
        if (ctx.height < until)
          throw new TxFailure(
            'invalid_params',
            `${operator} is jailed until block ${until} (this is block ${ctx.height})`,
            { jailedUntil: until },
          );
        ctx.writeState(jailedKey(operator), undefined);
      },
    }),
    factory({
      kind: 'staking.submitEvidence',
      summary:
        'two conflicting signed votes of one validator: it is slashed 5% of its stake (paid to the submitter) and removed from the set for good',
      payload: EvidencePayload,
      admit: (payload) => {
        const problem = conflictProblem(payload);
        if (problem) throw new TxFailure('invalid_params', problem);
      },
      execute(ctx: TxContext<Static<typeof EvidencePayload>>, service) {
        const problem = conflictProblem(ctx.payload);
        if (problem) throw new TxFailure('invalid_params', problem);
        const { first, second } = ctx.payload;
        const operator = first.validator;
        const consensusKey = consensusKeyOf(ctx, service, operator);
        if (!consensusKey)
          throw new TxFailure(
            'not_validator',
            `${operator} is not a validator (or its stake has already been returned)`,
          );
        const signer = [{ operator, consensusKey, power: 1n }];
        if (!voteSigned(ctx.chainId, signer, first) || !voteSigned(ctx.chainId, signer, second))
          throw new TxFailure('invalid_params', `the votes are not both signed by ${operator}'s consensus key`);
        const oldest = ctx.height - decode<number>(ctx.readState(UNBONDING_BLOCKS_KEY)!);
        if (first.height < oldest || first.height > ctx.height + 1)
          throw new TxFailure(
            'invalid_params',
            `evidence for block ${first.height} is outside the window (blocks ${Math.max(1, oldest)} to ${ctx.height + 1})`,
          );
        if (readNumber(read(ctx), tombstonedKey(operator)) !== undefined)
          throw new TxFailure('invalid_params', `${operator} has already been punished for double signing`);
        const record = readValidator(read(ctx), operator);
        if (record) {
          const slashed = (BigInt(record.stake) * DOUBLE_SIGN_SLASH_PER_MILLE) / 1000n;
          record.stake = (BigInt(record.stake) - slashed).toString();
          writeValidator(write(ctx), record);
          const account = ctx.account(operator as never);
          account.bonded.stake = (account.bonded.stake ?? 0n) - slashed;
          ctx.setAccount(operator as never, account);
          if (slashed > 0n) ctx.credit(ctx.tx.from, 'OGT', slashed);
        }
        ctx.writeState(tombstonedKey(operator), encode(ctx.height));
        ctx.writeState(jailedKey(operator), undefined);
        writeMissed(write(ctx), operator, []);
      },
    }),
  ];
}
