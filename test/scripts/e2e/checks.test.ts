import { describe, expect, it } from 'vitest';
import {
  acknowledgedMined,
  faucetCooldown,
  finality,
  healthy,
  matchesModel,
  onHosts,
  type CheckInput,
} from '../../../scripts/e2e/checks.js';
import type { Collected, MinedTx, NodeReport, ReportedBalance } from '../../../scripts/e2e/collect.js';
import { History } from '../../../scripts/e2e/history.js';
import { loadManifest } from '../../../scripts/e2e/manifest.js';

const A = `svc1${'a'.repeat(40)}`;
const B = `svc1${'b'.repeat(40)}`;
const hash = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
const T0 = 1_800_000_000_000;

function mined(n: number, from: string, nonce: number, extra: Partial<MinedTx> = {}): MinedTx {
  return {
    height: n,
    index: 0,
    timestamp: T0 + n * 300,
    hash: hash(n),
    from,
    nonce,
    kind: 'transfer',
    payload: { to: B, asset: 'OMC', amount: '1' },
    status: 'success',
    proposer: `svc1${'9'.repeat(40)}`,
    ...extra,
  };
}

function input(txs: MinedTx[], history: History, nodes: NodeReport[] = []): CheckInput {
  const collected: Collected = {
    height: 10,
    reference: 'v0',
    nodes,
    txs,
    genesis: new Map(),
    jobs: new Map(),
    deals: new Map(),
    nonces: new Map(),
    validators: [],
    baseFee: 1_000_000_000n,
  };
  return {
    manifest: loadManifest(undefined),
    collected,
    history,
    faucet: `svc1${'f'.repeat(40)}`,
    accounts: [],
    exits: new Map(),
    problems: [],
  };
}

/** An acknowledgement by `node` at `at`. */
function ack(
  history: History,
  node: string,
  txHash: string,
  at: number,
  from = A,
  nonce = 0,
  operation: 'transfer' | 'badNonce' = 'transfer',
): void {
  const entry = history.submit({ operation, node, hash: txHash, from, nonce });
  (entry as { sentAt: number }).sentAt = at;
  history.acknowledged(entry, txHash);
  entry.answeredAt = at;
}

describe('the e2e checks', () => {
  it('never explain an unmined acknowledgement by a kill: the killed node replays its journal when it starts again', () => {
    const history = new History();
    ack(history, 'f0', hash(99), T0);
    history.disrupted({ kind: 'kill', node: 'f0', at: T0 + 100, until: T0 + 2_000 });
    const check = acknowledgedMined(input([], history));
    expect(check.passed).toBe(false);
    expect(check.details[0]).toContain('was never mined');
  });

  it('explain one by a race for its nonce only when the winner was sent close to it', () => {
    const raced = new History();
    ack(raced, 'v1', hash(99), T0);
    ack(raced, 'v2', hash(5), T0 + 1_000);
    expect(acknowledgedMined(input([mined(5, A, 0)], raced)).passed).toBe(true);
    // The same nonce taken 30 s later (a filler after the node lost it): not a race.
    const lost = new History();
    ack(lost, 'v1', hash(99), T0);
    ack(lost, 'v2', hash(5), T0 + 30_000);
    expect(acknowledgedMined(input([mined(5, A, 0)], lost)).passed).toBe(false);
  });

  it('explain one whose nonce went to a transaction of the same client acknowledged before it was sent, and only that one', () => {
    // v2 acknowledged nonce 0 (mined); 30 s later the client, told nonce 0 by a node that did not hold
    // that transaction yet, signed another with it, which v1 acknowledged.
    const again = new History();
    ack(again, 'v2', hash(5), T0);
    ack(again, 'v1', hash(99), T0 + 30_000);
    const check = acknowledgedMined(input([mined(5, A, 0)], again));
    expect(check.passed).toBe(true);
    expect(check.details[0]).toContain(`its nonce went to ${hash(5)}, acknowledged 30.0 s before it was sent`);
    // The first acknowledged lost and the later one mined: the node lost what it took first.
    const first = new History();
    ack(first, 'v1', hash(99), T0);
    ack(first, 'v2', hash(5), T0 + 30_000);
    expect(acknowledgedMined(input([mined(5, A, 0)], first)).passed).toBe(false);
  });

  it('explain a used nonce a node behind the chain took only for the operation that sends one on purpose, used before it took it', () => {
    // Nonce 0 mined in block 5 (T0 + 1.5 s); v1, behind, acknowledged a stale transfer 30 s later.
    const behind = new History();
    ack(behind, 'v1', hash(99), T0 + 30_000, A, 0, 'badNonce');
    const check = acknowledgedMined(input([mined(5, A, 0)], behind));
    expect(check.passed).toBe(true);
    // The same for an ordinary transfer is a lost acknowledgement.
    const transfer = new History();
    ack(transfer, 'v1', hash(99), T0 + 30_000, A, 0, 'transfer');
    expect(acknowledgedMined(input([mined(5, A, 0)], transfer)).passed).toBe(false);
    // A stale one taken before the block that used its nonce is not explained by it.
    const before = new History();
    ack(before, 'v1', hash(99), T0 - 30_000, A, 0, 'badNonce');
    expect(acknowledgedMined(input([mined(5, A, 0)], before)).passed).toBe(false);
  });

  it('explain a lost faucet grant by a mint to the same address no client was given, one mint for one grant', () => {
    const faucet = `svc1${'f'.repeat(40)}`;
    const grant = (history: History, at: number, txHash: string): void => {
      const entry = history.submit({ operation: 'faucet', node: 'v0', to: B });
      (entry as { sentAt: number }).sentAt = at;
      history.acknowledged(entry, txHash);
      entry.answeredAt = at;
    };
    // Signed again long after (the node had just restarted), and mined as a failure of the cooldown: still the grant's fate.
    const again = mined(40, faucet, 7, {
      kind: 'faucet.mint',
      payload: { to: B, omc: '1', ogt: '1', cooldownSeconds: 5 },
      status: 'failed',
      error: { name: 'cooldown_active', reason: '' },
      timestamp: T0 + 20_000,
    });
    const one = new History();
    grant(one, T0, hash(98));
    expect(acknowledgedMined(input([again], one)).passed).toBe(true);
    const two = new History();
    grant(two, T0, hash(98));
    grant(two, T0 + 100, hash(99));
    expect(acknowledgedMined(input([again], two)).details).toEqual([expect.stringContaining(hash(99))]);
    // A mint from before the request stands for nothing.
    const early = new History();
    grant(early, T0 + 30_000, hash(98));
    expect(acknowledgedMined(input([again], early)).passed).toBe(false);
    // The address granted through another node 0.8 s before, within the 5 s cooldown: the chain keeps one grant.
    const other = mined(41, faucet, 8, {
      kind: 'faucet.mint',
      payload: { to: B, omc: '1', ogt: '1', cooldownSeconds: 5 },
      timestamp: T0 - 800,
    });
    const within = new History();
    grant(within, T0, hash(98));
    grant(within, T0 - 1_000, other.hash);
    expect(acknowledgedMined(input([other], within)).passed).toBe(true);
    const outside = new History();
    grant(outside, T0 + 6_000, hash(98));
    grant(outside, T0 - 1_000, other.hash);
    expect(acknowledgedMined(input([other], outside)).passed).toBe(false);
  });

  it('fail when a transaction a node refused is mined', () => {
    const history = new History();
    const entry = history.submit({ operation: 'badNonce', node: 'v0', hash: hash(3), from: A, nonce: 0 });
    history.refused(entry, 'nonce_too_low');
    expect(acknowledgedMined(input([mined(3, A, 0)], history)).details[0]).toContain(
      'refused by v0 (nonce_too_low) was mined',
    );
  });

  it('fail on two grants to one address within the cooldown they carry', () => {
    const grant = (n: number, at: number): MinedTx =>
      mined(n, `svc1${'f'.repeat(40)}`, n, {
        kind: 'faucet.mint',
        payload: { to: B, omc: '1', ogt: '1', cooldownSeconds: 5 },
        timestamp: at,
      });
    expect(faucetCooldown(input([grant(1, T0), grant(2, T0 + 5_000)], new History())).passed).toBe(true);
    expect(faucetCooldown(input([grant(1, T0), grant(2, T0 + 4_999)], new History())).passed).toBe(false);
  });

  it('fail on two finalized hashes seen at one height', () => {
    const history = new History();
    history.sightings.push(
      { node: 'v0', at: T0, height: 4, hash: hash(1) },
      { node: 'v1', at: T0, height: 4, hash: hash(2) },
    );
    const node: NodeReport = {
      name: 'v0',
      head: 4,
      blocks: new Map([[4, { hash: hash(1), stateRoot: hash(0), timestamp: T0, proposer: A, transactions: [] }]]),
      balances: new Map(),
      tokenBalances: new Map(),
      healthStatus: 200,
      health: 'healthy',
      url: 'http://127.0.0.1:8545',
      peers: [],
    };
    const result = finality(input([], history, [node]));
    expect(result.passed).toBe(false);
    expect(result.details.join('\n')).toContain('two finalized blocks at 4');
  });

  it('on test hosts, fail a node that answers or reaches a peer at 127.0.0.1, and a follower that found no other follower', () => {
    const peer = (host: string) => ({
      peerId: `12D3KooW${host}`,
      addresses: [`/ip4/${host}/tcp/30333`],
      direction: 'outbound' as const,
      head: null,
    });
    const node = (name: string, host: string, peers: string[]): NodeReport => ({
      name,
      head: 4,
      blocks: new Map(),
      balances: new Map(),
      tokenBalances: new Map(),
      healthStatus: 200,
      health: 'healthy',
      url: `http://${host}:8545`,
      peers: peers.map(peer),
    });
    const good = [
      node('v0', '10.1.1.10', ['10.1.1.11', '10.1.1.12']),
      node('f0', '10.1.1.11', ['10.1.1.10', '10.1.1.12']),
      node('f1', '10.1.1.12', ['10.1.1.10', '10.1.1.11']),
    ];
    expect(onHosts(input([], new History(), good)).passed).toBe(true);
    const loopback = [good[0]!, node('f0', '10.1.1.11', ['10.1.1.10', '10.1.1.12', '127.0.0.1']), good[2]!];
    expect(onHosts(input([], new History(), loopback)).details).toEqual([
      `f0 reaches peer 12D3KooW127.0.0.1 at /ip4/127.0.0.1/tcp/30333, no test host's address`,
    ]);
    const apart = [good[0]!, node('f0', '10.1.1.11', ['10.1.1.10']), node('f1', '10.1.1.12', ['10.1.1.10'])];
    expect(onHosts(input([], new History(), apart)).details).toEqual([
      'f0 is connected to no other follower: peer exchange found none',
      'f1 is connected to no other follower: peer exchange found none',
    ]);
  });

  it('name a node that exited on its own with its last words, and not one the runner ended', () => {
    const node: NodeReport = {
      name: 'v3',
      head: 4,
      blocks: new Map(),
      balances: new Map(),
      tokenBalances: new Map(),
      healthStatus: 200,
      health: 'healthy',
      url: 'http://127.0.0.1:8545',
      peers: [],
    };
    const exits = new Map([
      [
        'v3',
        [{ at: T0, code: 1, signal: null, expected: false, lastWords: 'Error: boom\n    at tick (chain.js:1:1)' }],
      ],
      ['v2', [{ at: T0, code: null, signal: 'SIGKILL' as const, expected: true }]],
    ]);
    const result = healthy({ ...input([], new History(), [node]), exits });
    expect(result.passed).toBe(false);
    expect(result.details).toEqual([
      `v3 exited on its own at ${new Date(T0).toISOString()} (1): Error: boom\n    at tick (chain.js:1:1)`,
    ]);
  });

  it("compare every node's balances with the model, and a slashed bond only against what its beneficiaries gained", () => {
    const balance = (omc: bigint): ReportedBalance => ({ omc, ogt: 0n, bonded: {} });
    const node = (omc: bigint): NodeReport => ({
      name: 'v0',
      head: 10,
      blocks: new Map(),
      balances: new Map([[A, balance(omc)]]),
      tokenBalances: new Map(),
      healthStatus: 200,
      health: 'healthy',
      url: 'http://127.0.0.1:8545',
      peers: [],
    });
    const base = input([], new History(), [node(7n)]);
    const withGenesis = (n: NodeReport): CheckInput => ({
      ...base,
      collected: { ...base.collected, nodes: [n], genesis: new Map([[A, balance(7n)]]) },
    });
    expect(matchesModel(withGenesis(node(7n))).passed).toBe(true);
    expect(matchesModel(withGenesis(node(8n))).details[0]).toContain('OMC 8, model 7');

    // A job whose provider missed its deadline: refunded, and 10 OGT of the provider's bond went to the requester.
    const P = `svc1${'c'.repeat(40)}`;
    const submit = mined(1, A, 0, { kind: 'oon.submitJob', payload: { gasLimit: '10', gasPrice: '1', replicas: 1 } });
    // Its assignment is dropped when missed: the record names the provider only in missedBy.
    const job = {
      status: 'failed',
      providers: [],
      missedBy: [P],
      attempts: 1,
      escrow: '0',
      fee: null,
      gasUsed: null,
      settledBy: null,
    };
    const slashed = (gained: bigint): CheckInput => {
      const reports: NodeReport = {
        ...node(100n),
        balances: new Map<string, ReportedBalance>([
          [A, { omc: 100n, ogt: gained, bonded: {} }],
          [P, { omc: 0n, ogt: 0n, bonded: { compute: 990n } }],
        ]),
      };
      return {
        ...base,
        collected: {
          ...base.collected,
          txs: [submit],
          nodes: [reports],
          jobs: new Map([[submit.hash, job as never]]),
          genesis: new Map<string, ReportedBalance>([
            [A, balance(100n)],
            [P, { omc: 0n, ogt: 0n, bonded: { compute: 1000n } }],
          ]),
        },
      };
    };
    expect(matchesModel(slashed(10n)).passed).toBe(true);
    expect(matchesModel(slashed(9n)).details).toEqual([
      expect.stringContaining('slashed bonds 10 OGT base units, but requesters and clients gained 9'),
    ]);
  });
});
