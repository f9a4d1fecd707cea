import { describe, expect, it } from 'vitest';
import { Tendermint, type ConsensusHost } from '../../consensus/tendermint.js';
import type { Vote } from '../../consensus/vote-set.js';
import { prng, Simulation, type Message } from './simulation.js';

const four = [
  { name: 'v1', power: 20n },
  { name: 'v2', power: 20n },
  { name: 'v3', power: 20n },
  { name: 'v4', power: 20n },
];

/** Every commit certificate holds precommits of more than 2/3 of the power for its value, one per validator. */
function certificatesHold(sim: Simulation): void {
  for (const { value, commit, height, round } of sim.commits) {
    const signers = new Set(commit.map((v) => v.validator));
    expect(signers.size).toBe(commit.length);
    expect(
      commit.every((v) => v.type === 'precommit' && v.value === value && v.height === height && v.round === round),
    ).toBe(true);
    const power = [...signers].reduce((sum, name) => sum + sim.powerOf(name), 0n);
    expect(power * 3n > sim.totalPower() * 2n).toBe(true);
  }
}

describe('Tendermint consensus (simulated network)', () => {
  it('decides one value per height on every validator, 20 heights, over random delays', () => {
    for (const seed of [1, 2, 3]) {
      const sim = new Simulation({ validators: four, seed });
      sim.start();
      sim.run(60_000, () => sim.decidedByAll() >= 20);
      expect(sim.decidedByAll()).toBeGreaterThanOrEqual(20);
      expect(sim.disagreements()).toEqual([]);
      certificatesHold(sim);
    }
  });

  it('says a height is decided from its decision until the next height starts (what is left of it is the commit)', () => {
    const sim = new Simulation({ validators: four, seed: 7 });
    sim.start();
    sim.run(60_000, () => sim.decidedByAll() >= 1);
    const nodes = [...sim.nodes.values()];
    // The last to decide is still at height 1 (the next starts after the commit wait); any earlier one may be at 2.
    const last = nodes.find((node) => node.machine.state().height === 1)!;
    expect(last).toBeDefined();
    for (const { machine } of nodes)
      expect(machine.state()).toMatchObject(machine.state().height === 1 ? { decided: true } : { height: 2 });
    sim.run(Number.POSITIVE_INFINITY, () => last.machine.state().height === 2);
    expect(last.machine.state()).toMatchObject({ height: 2, decided: false });
  });

  it('keeps deciding with one of four validators crashed, also when it is the proposer (a round is lost, not the chain)', () => {
    const sim = new Simulation({ validators: four, seed: 7 });
    sim.start();
    sim.run(60_000, () => sim.decidedByAll() >= 3);
    // Crash the proposer of the next height's first round.
    const next = sim.decidedByAll() + 1;
    const victim = sim.proposer(next, 0);
    sim.crash(victim);
    const alive = four.map((v) => v.name).filter((n) => n !== victim);
    sim.run(sim.now + 120_000, () => sim.decidedByAll(alive) >= next + 15);
    expect(sim.decidedByAll(alive)).toBeGreaterThanOrEqual(next + 15);
    expect(sim.maxRound.value).toBeGreaterThan(0);
    // The dead proposer's rounds: each live validator's propose timeout says it prevoted nil.
    const lost = sim.timeoutMoves.filter((m) => m.step === 'propose' && sim.proposer(m.height, m.round) === victim);
    const first = lost[0]!;
    expect(
      lost
        .filter((m) => m.height === first.height && m.round === first.round)
        .map((m) => m.node)
        .sort(),
    ).toEqual([...alive].sort());
    expect(lost.every((m) => m.moved === 'prevoted nil')).toBe(true);
    expect(sim.disagreements()).toEqual([]);
    certificatesHold(sim);
  });

  it('decides nothing with two of four down, diverges nowhere, and resumes when one comes back', () => {
    const sim = new Simulation({ validators: four, seed: 11 });
    sim.start();
    sim.run(60_000, () => sim.decidedByAll() >= 5);
    const stalledAt = Math.max(...sim.decisions.keys());
    sim.pause('v3');
    sim.pause('v4');
    sim.run(sim.now + 30_000);
    const during = Math.max(...sim.decisions.keys());
    // At most the height already under way when they stopped is finished by the others.
    expect(during).toBeLessThanOrEqual(stalledAt + 1);
    expect(sim.disagreements()).toEqual([]);
    sim.resume('v3');
    sim.run(sim.now + 120_000, () => sim.decidedByAll(['v1', 'v2', 'v3']) >= during + 5);
    expect(sim.decidedByAll(['v1', 'v2', 'v3'])).toBeGreaterThanOrEqual(during + 5);
    expect(sim.disagreements()).toEqual([]);
  });

  it('agrees despite a byzantine validator that proposes two values and votes for both', () => {
    for (const seed of [21, 22, 23, 24, 25]) {
      const sim = new Simulation({
        validators: four,
        seed,
        byzantine: {
          v1: {
            // To half the network one value, to the other half another.
            proposal: (p, to) => (to === 'v2' || to === 'v1' ? p : { ...p, value: `${p.value} (forked)` }),
            vote: (v, to) =>
              to === 'v2' || to === 'v1' ? v : v.value === null ? v : { ...v, value: `${v.value} (forked)` },
          },
        },
      });
      sim.start();
      sim.run(120_000, () => sim.decidedByAll(['v2', 'v3', 'v4']) >= 10);
      expect(sim.decidedByAll(['v2', 'v3', 'v4'])).toBeGreaterThanOrEqual(10);
      const honest = [...sim.decisions].filter(
        ([, byNode]) => new Set(['v2', 'v3', 'v4'].map((n) => byNode.get(n)).filter(Boolean)).size > 1,
      );
      expect(honest).toEqual([]);
    }
  });

  it('never lets two validators decide differently: 120 seeds, random delays up to 400 ms, a byzantine voter, a pause', () => {
    for (let seed = 100; seed < 220; seed++) {
      const coin = prng(seed * 7919);
      const sim: Simulation = new Simulation({
        validators: [
          { name: 'a', power: 15n },
          { name: 'b', power: 28n },
          { name: 'c', power: 20n },
          { name: 'd', power: 17n },
        ],
        seed,
        maxDelayMs: 400,
        byzantine: {
          a: { vote: (v) => (coin() < 0.5 ? v : { ...v, value: v.value === null ? `random ${seed}` : null }) },
        },
      });
      sim.start();
      sim.run(10_000);
      if (seed % 3 === 0) sim.pause('d');
      sim.run(20_000);
      sim.resume('d');
      sim.run(30_000);
      // It made progress too (the byzantine voter alone cannot stop 3 honest validators of 65 of 80 power).
      expect(sim.decidedByAll(['b', 'c']), `seed ${seed}`).toBeGreaterThan(5);
      const honest = [...sim.decisions].filter(
        ([, byNode]) => new Set(['b', 'c', 'd'].map((n) => byNode.get(n)).filter(Boolean)).size > 1,
      );
      expect(honest, `seed ${seed}`).toEqual([]);
    }
  });

  it('reports two different votes of one validator in one round as evidence, and still agrees', () => {
    const sim = new Simulation({
      validators: four,
      seed: 5,
      byzantine: { v2: { vote: (v, to) => (to === 'v3' ? { ...v, value: 'other' } : v) } },
    });
    sim.start();
    sim.run(60_000, () => sim.decidedByAll(['v1', 'v3', 'v4']) >= 3);
    expect(sim.disagreements()).toEqual([]);
    expect(sim.evidence.length).toBeGreaterThan(0);
    for (const { first, second } of sim.evidence) {
      expect(first.validator).toBe('v2');
      expect([second.validator, second.type, second.height, second.round]).toEqual([
        first.validator,
        first.type,
        first.height,
        first.round,
      ]);
      expect(second.value).not.toBe(first.value);
    }
  });

  it('keeps a validator locked on the value it precommitted: a later round cannot decide another while one validator has decided it', () => {
    // Four of equal power, v1 byzantine. At a height whose round 0 is proposed by an honest validator
    // and round 1 by v1: everyone prevotes and precommits X in round 0, but only v3 sees the
    // precommits for X (v1 sends its precommit for X to v3 alone, nil to the others, and v3's precommit
    // and commit reach the others only after 20 s), so v3 decides X and v2, v4 move to round 1 locked on X. There v1 proposes
    // Y. A validator that ignored its lock would prevote Y with v1: Y would be decided beside X.
    const probe = new Simulation({ validators: four, seed: 1 });
    let target = 2;
    while (!(probe.proposer(target, 0) !== 'v1' && probe.proposer(target, 1) === 'v1')) target++;
    const isTarget = (m: Message): boolean =>
      (m.kind === 'vote' ? m.vote.height : m.kind === 'proposal' ? m.proposal.height : m.height) === target;
    const sim = new Simulation({
      validators: four,
      seed: 3,
      maxDelayMs: 5,
      byzantine: {
        v1: {
          proposal: (p) => (p.height === target && p.round === 1 ? { ...p, value: 'Y', validRound: -1 } : p),
          vote: (v, to) => {
            if (v.height !== target) return v;
            // Its precommit for X to v3 only; nil to the others, so they see precommits of more than 2/3 (of anything) and move on.
            if (v.round === 0 && v.type === 'precommit') return to === 'v3' ? v : { ...v, value: null };
            if (v.round >= 1 && v.type === 'prevote') return { ...v, value: 'Y' };
            if (v.round >= 1 && v.type === 'precommit') return { ...v, value: 'Y' };
            return v;
          },
        },
      },
      delay: (to, m) => {
        if (!isTarget(m) || to === 'v3') return undefined;
        // Precommits for X at round 0 from v1 and v3 (v1's relayed by v3), and v3's commit: held up.
        if (
          (m.kind === 'vote' &&
            m.vote.type === 'precommit' &&
            m.vote.round === 0 &&
            m.vote.value !== null &&
            (m.vote.validator === 'v3' || m.vote.validator === 'v1')) ||
          m.kind === 'commit'
        )
          return 20_000;
        return undefined;
      },
    });
    sim.start();
    sim.run(120_000, () => sim.decidedByAll(['v2', 'v3', 'v4']) >= target + 2);
    expect(sim.decisions.get(target)?.get('v3')).toMatch(/^block /);
    expect(sim.decisions.get(target)?.get('v2')).toBe(sim.decisions.get(target)?.get('v3'));
    expect(sim.decisions.get(target)?.get('v4')).toBe(sim.decisions.get(target)?.get('v3'));
    expect(sim.maxRound.value).toBeGreaterThan(0);
  });

  it('needs more than 2/3 of the power, not a majority: an equivocating proposer of 15 of 80 cannot split 28 from 37', () => {
    // a (15, byzantine) proposes X to b and Y to c and d, and votes each way; b on one side, c and d on
    // the other, cut off from each other for 20 s. A majority rule would decide X at b (43) and Y at c, d (52).
    const split = ['c', 'd'];
    const sides = (to: string, from: string): boolean => (to === 'b') !== (from === 'b');
    const healAt = 20_000;
    const sim: Simulation = new Simulation({
      validators: [
        { name: 'a', power: 15n },
        { name: 'b', power: 28n },
        { name: 'c', power: 20n },
        { name: 'd', power: 17n },
      ],
      seed: 9,
      maxDelayMs: 5,
      byzantine: {
        a: {
          proposal: (p, to) => (split.includes(to) ? { ...p, value: `${p.value} (Y)` } : p),
          vote: (v, to) => (split.includes(to) && v.value !== null ? { ...v, value: `${v.value} (Y)` } : v),
        },
      },
      delay: (to, m) => {
        if (sim.now >= healAt) return undefined;
        const from = m.kind === 'vote' ? m.vote.validator : m.kind === 'proposal' ? m.proposal.proposer : undefined;
        // Until the cut heals, nothing of b's reaches c or d and the reverse (a's messages go everywhere).
        return m.kind === 'commit' || (from !== undefined && from !== 'a' && sides(to, from))
          ? healAt - sim.now
          : undefined;
      },
    });
    sim.start();
    sim.run(healAt);
    // Nothing decided while cut: neither side has more than 2/3.
    expect(sim.decisions.size).toBe(0);
    sim.run(120_000, () => sim.decidedByAll(['b', 'c', 'd']) >= 5);
    expect(sim.disagreements()).toEqual([]);
    expect(sim.decidedByAll(['b', 'c', 'd'])).toBeGreaterThanOrEqual(5);
  });

  it("lets a validator that missed a round's prevotes vote for the value proposed again, from the proof of lock the proposal carries", () => {
    // v5 was down while v1..v4 prevoted X in round 0 and locked on it; a later round's proposer proposes X
    // again with valid round 0. Without those prevotes v5 must not take the proposal; with them it prevotes X.
    const five = new Map(['v1', 'v2', 'v3', 'v4', 'v5'].map((name) => [name, 20n] as const));
    const sent: Vote[] = [];
    const host = (self: string): ConsensusHost => ({
      self,
      powers: () => five,
      proposer: (_height, round) => `v${(round % 5) + 1}`,
      propose: () => undefined,
      broadcastVote: (vote) => void sent.push(vote),
      schedule: () => undefined,
      decide: () => undefined,
    });
    const locked = new Tendermint(host('v1'));
    locked.startHeight(7);
    const prevotesForX = ['v1', 'v2', 'v3', 'v4'].map(
      (validator): Vote => ({ type: 'prevote', height: 7, round: 0, value: 'X', validator }),
    );
    for (const vote of prevotesForX) locked.onVote(vote);
    expect(
      locked
        .polka(0, 'X')
        .map((v) => v.validator)
        .sort(),
    ).toEqual(['v1', 'v2', 'v3', 'v4']);
    expect(locked.polka(0, 'Y')).toEqual([]);
    const late = new Tendermint(host('v5'));
    late.startHeight(7, { round: 2, lockedValue: null, lockedRound: -1, validValue: null, validRound: -1 });
    late.onProposal({ height: 7, round: 2, value: 'X', validRound: 0, proposer: 'v3' }, true);
    expect(sent.filter((v) => v.validator === 'v5')).toEqual([]);
    for (const vote of locked.polka(0, 'X')) late.onVote(vote);
    expect(sent.filter((v) => v.validator === 'v5')).toEqual([
      { type: 'prevote', height: 7, round: 2, value: 'X', validator: 'v5' },
    ]);
  });
});
