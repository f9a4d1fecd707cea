import { encode } from '../../sdk/encoding.js';
import type { BlockContext } from '../../chain/contract.js';
import { nextSet, proposerAfter, type PrioritizedValidator, type Validator } from '../../consensus/validator-set.js';
import { GENESIS_VALIDATOR_POWER, isEpochEnd, livenessParams } from './params.js';
import {
  consensusKeyIndex,
  isExcluded,
  jailedKey,
  readMissed,
  readOperators,
  readSet,
  readValidator,
  validatorKey,
  writeMissed,
  writeOperators,
  writeSet,
  writeValidator,
  type StoredSet,
} from './state.js';
import type { GenesisSpec } from '../../chain/genesis.js';
import type { ReadState } from '../../chain/state/indexed.js';

/** The set in force while no change has been made: the genesis validator alone. */
export function genesisSet(genesis: GenesisSpec): StoredSet {
  const validators = [
    { operator: genesis.validator, consensusKey: genesis.validatorKey, power: GENESIS_VALIDATOR_POWER, priority: 0n },
  ];
  return { since: 0, validators, previous: validators };
}

/** The set that governed block `height` (the head, or the block after it), from the stored set. */
export function setGoverning(stored: StoredSet, height: number): readonly PrioritizedValidator[] {
  return height <= stored.since ? stored.previous : stored.validators;
}

/**
 * The staking end of block, on every node: stakes whose unbonding period is over go back to their
 * operators; the parent's certificate this block carries counts who missed it, and a validator that
 * missed too many of the recent ones is jailed; at an epoch's last block the set for the next epoch is
 * made — the genesis validator and every pending or active validator with its stake as power (pending
 * ones become active), jailed and tombstoned ones left out — with the proposer priorities carried on;
 * between epochs, a validator jailed or tombstoned in this block leaves the set at once.
 */
export function stakingEndBlock(ctx: BlockContext, genesis: GenesisSpec): void {
  const read: ReadState = (key) => ctx.readState(key);
  const write = (key: string, value: Uint8Array | undefined): void => ctx.writeState(key, value);
  const operators = readOperators(read);
  const released = releaseUnbonded(ctx, operators);
  const stored = readSet(read);
  const current = stored ?? genesisSet(genesis);
  countLiveness(ctx, current);
  const staying = operators.filter((o) => !released.includes(o)).map((o) => readValidator(read, o)!);
  if (isEpochEnd(read, ctx.height)) {
    // Nothing staked, ever, and the genesis validator in good standing: it stays alone and nothing is written.
    if (!stored && staying.length === 0 && !isExcluded(read, genesis.validator)) return;
    const members: Validator[] = isExcluded(read, genesis.validator)
      ? []
      : [{ operator: genesis.validator, consensusKey: genesis.validatorKey, power: GENESIS_VALIDATOR_POWER }];
    for (const record of staying) {
      if (record.status === 'unbonding' || isExcluded(read, record.operator)) continue;
      if (record.status === 'pending') {
        record.status = 'active';
        record.joinedAt = ctx.height;
        writeValidator(write, record);
      }
      members.push({ operator: record.operator, consensusKey: record.consensusKey, power: BigInt(record.stake) });
    }
    replaceSet(ctx, current, members);
    return;
  }
  const leaving = current.validators.filter((v) => isExcluded(read, v.operator));
  if (leaving.length > 0)
    replaceSet(
      ctx,
      current,
      current.validators.filter((v) => !leaving.includes(v)),
    );
}

/** Writes the set in force after this block, priorities carried on from `current`. An empty set is never written: the chain would stop for good. */
function replaceSet(ctx: BlockContext, current: StoredSet, members: readonly Validator[]): void {
  if (members.length === 0) return;
  const steps = ctx.height - current.since;
  const advanced = steps > 0 ? proposerAfter(current.validators, steps).set : current.validators;
  writeSet(
    (key, value) => ctx.writeState(key, value),
    ctx.height,
    nextSet(advanced, members),
    setGoverning(current, ctx.height),
  );
}

/** Stakes whose unbonding period ends with this block go back to their operators' OGT; returns who left. */
function releaseUnbonded(ctx: BlockContext, operators: readonly string[]): string[] {
  const read: ReadState = (key) => ctx.readState(key);
  const write = (key: string, value: Uint8Array | undefined): void => ctx.writeState(key, value);
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
    writeMissed(write, operator, []);
    released.push(operator);
  }
  if (released.length > 0)
    writeOperators(
      write,
      operators.filter((o) => !released.includes(o)),
    );
  return released;
}

/**
 * Each member of the set that governed the certified parent, missing from the certificate, gets that
 * height on its list; heights older than the window drop off; more than the allowed misses jails it.
 * Nothing is written for a validator that signs and has no misses on record.
 */
function countLiveness(ctx: BlockContext, current: StoredSet): void {
  const commit = ctx.lastCommit;
  if (!commit) return;
  const read: ReadState = (key) => ctx.readState(key);
  const write = (key: string, value: Uint8Array | undefined): void => ctx.writeState(key, value);
  const { window, maxMissed, jailBlocks } = livenessParams(read);
  const signed = new Set(commit.signers);
  // A set of one always signs its own blocks; it is never jailed (the chain would stop).
  const governing = setGoverning(current, commit.height);
  if (governing.length < 2) return;
  for (const { operator } of governing) {
    const before = readMissed(read, operator);
    const kept = before.filter((h) => h > commit.height - window);
    if (!signed.has(operator)) kept.push(commit.height);
    if (kept.length > maxMissed && !isExcluded(read, operator)) {
      write(jailedKey(operator), encode(ctx.height + jailBlocks));
      writeMissed(write, operator, []);
      continue;
    }
    if (kept.length !== before.length || kept.some((h, i) => h !== before[i])) writeMissed(write, operator, kept);
  }
}
