import type { BlockContext } from '../../chain/contract.js';
import { nextSet, proposerAfter, type PrioritizedValidator, type Validator } from '../../consensus/validator-set.js';
import { GENESIS_VALIDATOR_POWER, isEpochEnd } from './params.js';
import { consensusKeyIndex, validatorKey, readOperators, readSet, readValidator, writeOperators, writeSet, writeValidator } from './state.js';
import type { GenesisSpec } from '../../chain/genesis.js';

/** The set in force while no epoch has changed it: the genesis validator alone. */
export function genesisSet(genesis: GenesisSpec): { since: number; validators: PrioritizedValidator[] } {
  return { since: 0, validators: [{ operator: genesis.validator, consensusKey: genesis.validatorKey, power: GENESIS_VALIDATOR_POWER, priority: 0n }] };
}

/**
 * The staking end of block, on every node: stakes whose unbonding period is over go back to their
 * operators; at an epoch's last block the set for the next epoch is made — the genesis validator and
 * every pending or active validator with its stake as power (pending ones become active), with the
 * proposer priorities carried on from the epoch that ends.
 */
export function stakingEndBlock(ctx: BlockContext, genesis: GenesisSpec): void {
  const read = (key: string): Uint8Array | undefined => ctx.readState(key);
  const write = (key: string, value: Uint8Array | undefined): void => ctx.writeState(key, value);
  const operators = readOperators(read);
  const released: string[] = [];
  for (const operator of operators) {
    const record = readValidator(read, operator)!;
    if (record.status !== 'unbonding' || record.releaseAt! > ctx.height) continue;
    const stake = BigInt(record.stake);
    const account = ctx.account(operator as never);
    account.bonded.stake = (account.bonded.stake ?? 0n) - stake;
    account.ogt += stake;
    ctx.setAccount(operator as never, account);
    write(validatorKey(operator), undefined);
    write(consensusKeyIndex(record.consensusKey), undefined);
    released.push(operator);
  }
  if (released.length > 0) writeOperators(write, operators.filter((o) => !released.includes(o)));
  if (!isEpochEnd(read, ctx.height)) return;
  const stored = readSet(read);
  const staying = operators.filter((o) => !released.includes(o)).map((o) => readValidator(read, o)!);
  // Nothing staked, ever: the genesis validator stays alone and nothing is written.
  if (!stored && staying.length === 0) return;
  const current = stored ?? genesisSet(genesis);
  const steps = ctx.height - current.since;
  const advanced = steps > 0 ? proposerAfter(current.validators, steps).set : current.validators;
  const members: Validator[] = [{ operator: genesis.validator, consensusKey: genesis.validatorKey, power: GENESIS_VALIDATOR_POWER }];
  for (const record of staying) {
    if (record.status === 'unbonding') continue;
    if (record.status === 'pending') {
      record.status = 'active';
      record.joinedAt = ctx.height;
      writeValidator(write, record);
    }
    members.push({ operator: record.operator, consensusKey: record.consensusKey, power: BigInt(record.stake) });
  }
  writeSet(write, ctx.height, nextSet(advanced, members));
}
