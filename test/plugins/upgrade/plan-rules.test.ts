import { describe, expect, it } from 'vitest';
import type { TxContext, TxKind } from '../../../chain/contract.js';
import { isTxFailure } from '../../../chain/contract.js';
import { RULES_SCHEDULE_KEY, RulesSchedule } from '../../../chain/rules-schedule.js';
import { RULES_VERSION_KEY } from '../../../chain/rules-version.js';
import type { PrioritizedValidator } from '../../../consensus/validator-set.js';
import { encode } from '../../../sdk/encoding.js';
import { UNIT } from '../../../sdk/index.js';
import { upgradeEndBlock } from '../../../plugins/upgrade/end-block.js';
import type { UpgradeService } from '../../../plugins/upgrade/service.js';
import { readAdopted, readPending } from '../../../plugins/upgrade/state.js';
import { upgradeTxKinds } from '../../../plugins/upgrade/tx-kinds.js';

// The upgrade plans' rules on their own: a state map, a validator set of four, and the kinds and the
// end-of-block step called as the chain calls them.
const member = (operator: string, power: bigint): PrioritizedValidator => ({
  operator,
  consensusKey: `0x${operator.slice(4).padEnd(64, '0')}`,
  power: power * UNIT,
  priority: 0n,
});
const A = `svc1${'a'.repeat(40)}`;
const B = `svc1${'b'.repeat(40)}`;
const C = `svc1${'c'.repeat(40)}`;
const D = `svc1${'d'.repeat(40)}`;
const OUTSIDER = `svc1${'e'.repeat(40)}`;

function world(set: PrioritizedValidator[] = [member(A, 20n), member(B, 20n), member(C, 20n), member(D, 20n)]) {
  const state = new Map<string, Uint8Array>([[RULES_VERSION_KEY, encode(6)]]);
  const service = { sets: { setFor: () => set } } as unknown as UpgradeService;
  const kinds = new Map(upgradeTxKinds((spec) => spec as TxKind).map((kind) => [kind.kind, kind]));
  const read = (key: string): Uint8Array | undefined => state.get(key);
  const base = (height: number) => ({
    height,
    rulesVersion: 6,
    readState: read,
    writeState: (key: string, value: Uint8Array | undefined) => {
      if (value === undefined) state.delete(key);
      else state.set(key, value);
    },
  });
  return {
    read,
    /** Runs a kind in block `height`: undefined when it succeeds, else the failure's error and reason. */
    send(kind: string, from: string, payload: unknown, height: number): { error: string; reason: string } | undefined {
      const ctx = { ...base(height), tx: { from }, payload } as unknown as TxContext<unknown>;
      try {
        kinds.get(kind)!.execute(ctx, service);
        return undefined;
      } catch (error) {
        if (!isTxFailure(error)) throw error;
        return { error: error.error, reason: error.message };
      }
    },
    endBlock(height: number): void {
      upgradeEndBlock(base(height) as never, service.sets);
    },
    schedule: () => RulesSchedule.of({ get: read }).entries(),
  };
}

describe('upgrade plans, as chain rules', () => {
  it('a plan is adopted at the end of the first block whose approvals hold more than 2/3 of the power, before its height', () => {
    const w = world();
    expect(w.send('upgrade.propose', A, { version: 7, height: 100, name: 'seven' }, 10)).toBeUndefined();
    w.endBlock(10);
    expect(readPending(w.read)).toMatchObject({ planId: 1, version: 7, height: 100, approvals: [A] });
    expect(w.send('upgrade.approve', B, { planId: 1 }, 11)).toBeUndefined();
    w.endBlock(11);
    // Two of four at equal power is 1/2: not yet.
    expect(readAdopted(w.read)).toBeUndefined();
    expect(w.schedule()).toEqual([{ version: 6, height: 0 }]);
    expect(w.send('upgrade.approve', C, { planId: 1 }, 12)).toBeUndefined();
    w.endBlock(12);
    expect(readPending(w.read)).toBeUndefined();
    expect(readAdopted(w.read)).toMatchObject({
      planId: 1,
      name: 'seven',
      version: 7,
      height: 100,
      adoptedAt: 12,
      approvals: [A, B, C],
      approvedStake: (60n * UNIT).toString(),
      bondedStake: (80n * UNIT).toString(),
    });
    expect(w.schedule()).toEqual([
      { version: 6, height: 0 },
      { version: 7, height: 100 },
    ]);
    const schedule = RulesSchedule.of({ get: w.read });
    expect([schedule.versionAt(99), schedule.versionAt(100), schedule.versionAt(5000)]).toEqual([6, 7, 7]);
  });

  it("a lone validator's proposal is adopted at the end of its own block", () => {
    const w = world([member(A, 20n)]);
    w.send('upgrade.propose', A, { version: 9, height: 11 }, 10);
    w.endBlock(10);
    expect(readAdopted(w.read)).toMatchObject({ planId: 1, name: 'v9', version: 9, height: 11, adoptedAt: 10 });
    expect(w.read(RULES_SCHEDULE_KEY)).toBeDefined();
  });

  it('a plan not adopted by the end of the block before its height lapses, and its id is not used again', () => {
    const w = world();
    w.send('upgrade.propose', A, { version: 7, height: 20 }, 10);
    w.endBlock(10);
    w.send('upgrade.approve', B, { planId: 1 }, 18);
    w.endBlock(18);
    expect(readPending(w.read)).toBeDefined();
    w.endBlock(19);
    expect(readPending(w.read)).toBeUndefined();
    expect(readAdopted(w.read)).toBeUndefined();
    expect(w.schedule()).toEqual([{ version: 6, height: 0 }]);
    expect(w.send('upgrade.approve', C, { planId: 1 }, 20)).toMatchObject({ error: 'not_found' });
    w.send('upgrade.propose', A, { version: 7, height: 40 }, 21);
    expect(readPending(w.read)).toMatchObject({ planId: 2 });
  });

  it('refuses what cannot hold, each with its reason, and changes nothing', () => {
    const w = world();
    expect(w.send('upgrade.propose', OUTSIDER, { version: 7, height: 100 }, 10)).toMatchObject({
      error: 'not_validator',
      reason: expect.stringContaining('only validators propose upgrades'),
    });
    expect(w.send('upgrade.propose', A, { version: 6, height: 100 }, 10)).toMatchObject({
      error: 'upgrade_refused',
      reason: 'version 6 is not above 6, the newest the schedule holds (from block 0)',
    });
    expect(w.send('upgrade.propose', A, { version: 7, height: 10 }, 10)).toMatchObject({
      error: 'upgrade_refused',
      reason: expect.stringContaining('block 10 is not ahead of this one (10)'),
    });
    expect(readPending(w.read)).toBeUndefined();
    w.send('upgrade.propose', A, { version: 7, height: 100 }, 10);
    expect(w.send('upgrade.propose', B, { version: 8, height: 200 }, 11)).toMatchObject({
      error: 'upgrade_refused',
      reason: expect.stringContaining('plan 1 (version 7 from block 100) is pending'),
    });
    expect(w.send('upgrade.approve', A, { planId: 1 }, 11)).toMatchObject({
      error: 'upgrade_refused',
      reason: `${A} has approved plan 1 already`,
    });
    expect(w.send('upgrade.approve', OUTSIDER, { planId: 1 }, 11)).toMatchObject({ error: 'not_validator' });
    expect(w.send('upgrade.approve', B, { planId: 2 }, 11)).toMatchObject({
      error: 'not_found',
      reason: 'no plan 2 is pending (plan 1 is)',
    });
    expect(readPending(w.read)).toMatchObject({ planId: 1, approvals: [A] });
  });

  it('a later plan must follow the last adopted one: a higher version, from a later block', () => {
    const w = world([member(A, 20n)]);
    w.send('upgrade.propose', A, { version: 8, height: 50 }, 10);
    w.endBlock(10);
    expect(w.send('upgrade.propose', A, { version: 8, height: 80 }, 11)).toMatchObject({
      reason: 'version 8 is not above 8, the newest the schedule holds (from block 50)',
    });
    expect(w.send('upgrade.propose', A, { version: 9, height: 40 }, 11)).toMatchObject({
      reason: 'block 40 is not after block 50, where version 8 starts',
    });
    expect(w.send('upgrade.propose', A, { version: 9, height: 60 }, 11)).toBeUndefined();
  });
});
