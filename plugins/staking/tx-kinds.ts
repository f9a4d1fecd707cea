import Type, { type Static } from 'typebox';
import { formatAmountShort } from '../../sdk/amount.js';
import { decode, encode } from '../../sdk/encoding.js';
import { TxFailure, type TxContext, type TxKind, type TxKindFactory } from '../../chain/contract.js';
import { UNBONDING_BLOCKS_KEY } from '../providers/registry.js';
import { STAKE_RANGE } from './params.js';
import { consensusKeyIndex, readOperators, readValidator, writeOperators, writeValidator, type ValidatorRecord } from './state.js';
import type { StakingService } from './service.js';

const Units = Type.String({ pattern: '^[1-9][0-9]{0,77}$', description: 'OGT base units, decimal' });
const CreatePayload = Type.Object(
  {
    consensusKey: Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'the Ed25519 public key the validator signs votes and blocks with' }),
    stake: Units,
    moniker: Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f]+$' }),
  },
  { additionalProperties: false },
);
const AddStakePayload = Type.Object({ amount: Units }, { additionalProperties: false });
const UnbondPayload = Type.Object({}, { additionalProperties: false });

/** `stake_out_of_range` naming the range in whole OGT (the user's unit). */
function checkStake(stake: bigint, what: string): void {
  if (stake < STAKE_RANGE.minimum || stake > STAKE_RANGE.maximum) {
    throw new TxFailure('stake_out_of_range', `${what} is ${formatAmountShort(stake)} OGT: a validator's stake is ${formatAmountShort(STAKE_RANGE.minimum)} to ${formatAmountShort(STAKE_RANGE.maximum)} OGT`, {
      minimum: Number(formatAmountShort(STAKE_RANGE.minimum)),
      maximum: Number(formatAmountShort(STAKE_RANGE.maximum)),
    });
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
  if (!record) throw new TxFailure('not_validator', `${ctx.tx.from} is not a validator (staking.createValidator first)`);
  return record;
}

/** `staking.createValidator`, `staking.addStake`, `staking.unbond`. */
export function stakingTxKinds(factory: TxKindFactory<StakingService>): TxKind[] {
  return [
    factory({
      kind: 'staking.createValidator',
      summary: 'makes the signer a validator: its stake (15 to 28 OGT) moves into its bonded balance and is its voting power from the next epoch',
      payload: CreatePayload,
      debits: (payload) => [{ asset: 'OGT', amount: BigInt(payload.stake) }],
      admit: (payload, service) => {
        checkStake(BigInt(payload.stake), 'the stake');
        if (payload.consensusKey === service.chain.genesis.validatorKey) throw new TxFailure('invalid_params', 'that consensus key is the genesis validator\'s');
      },
      execute(ctx: TxContext<Static<typeof CreatePayload>>, service) {
        const stake = BigInt(ctx.payload.stake);
        checkStake(stake, 'the stake');
        const operator = ctx.tx.from;
        if (readValidator(read(ctx), operator)) throw new TxFailure('invalid_params', `${operator} is already a validator`);
        if (ctx.payload.consensusKey === service.chain.genesis.validatorKey || ctx.readState(consensusKeyIndex(ctx.payload.consensusKey))) {
          throw new TxFailure('invalid_params', `the consensus key ${ctx.payload.consensusKey} is another validator's`);
        }
        bond(ctx, operator, stake);
        writeValidator(write(ctx), { operator, consensusKey: ctx.payload.consensusKey, moniker: ctx.payload.moniker, stake: stake.toString(), status: 'pending', createdAt: ctx.height });
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
        if (record.status === 'unbonding') throw new TxFailure('invalid_params', `${record.operator} is unbonding (its stake returns at block ${record.releaseAt})`);
        const amount = BigInt(ctx.payload.amount);
        checkStake(BigInt(record.stake) + amount, 'the stake with it');
        bond(ctx, record.operator, amount);
        record.stake = (BigInt(record.stake) + amount).toString();
        writeValidator(write(ctx), record);
      },
    }),
    factory({
      kind: 'staking.unbond',
      summary: 'the signer leaves the validator set at the next epoch; its stake returns after the unbonding period and can be slashed until then',
      payload: UnbondPayload,
      execute(ctx) {
        const record = validatorOf(ctx);
        if (record.status === 'unbonding') throw new TxFailure('invalid_params', `${record.operator} is already unbonding (its stake returns at block ${record.releaseAt})`);
        record.status = 'unbonding';
        record.releaseAt = ctx.height + decode<number>(ctx.readState(UNBONDING_BLOCKS_KEY)!);
        writeValidator(write(ctx), record);
      },
    }),
  ];
}
