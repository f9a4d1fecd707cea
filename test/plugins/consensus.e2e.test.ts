import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, SvcClient, toHex, UNIT, type KeyPair } from '../../sdk/index.js';
import { startNodeProcess, type RunningNode } from '../helpers/cli.js';
import { tempDir, waitFor } from '../helpers/test-node.js';

// Four validators at equal power, as processes: the genesis validator (20 OGT of power without a
// stake) and three nodes whose operators stake 20 OGT each with their own keys as consensus keys. A
// network of its own, the devnet's accounts and keys but a liveness window that jails no one: these
// tests kill validators on purpose, again and again (jailing has its own test, slashing.test.ts).
const BLOCK_MS = 300;
const genesisFile = join(tempDir(), 'genesis.json');
writeFileSync(
  genesisFile,
  JSON.stringify({
    chainId: 'svc-consnet-1',
    timestamp: Date.now() - 60_000,
    validatorKey: toHex(devnetKey('validator', 0).publicKey),
    validator: devnetKey('validator', 0).address,
    accounts: Array.from({ length: 10 }, (_, i) => ({
      address: devnetKey('account', i).address,
      omc: '1000000',
      ogt: '10000',
    })),
    livenessWindow: 10_000,
    maxMissedBlocks: 9_999,
  }),
);
const stakers: KeyPair[] = [generateKeyPair(), generateKeyPair(), generateKeyPair()];
let genesis: RunningNode;
const others: RunningNode[] = [];
let v: SvcClient;

/** Each node's own dir (config, key, data), by node, so a killed one restarts on its data. */
const dirs = new Map<RunningNode, string>();

async function validator(key: KeyPair | undefined, bootstrap: string[], dir = tempDir()): Promise<RunningNode> {
  const config: Record<string, unknown> = { validator: { blockTime: BLOCK_MS, keyFile: join(dir, 'validator.key') } };
  writeFileSync(join(dir, 'validator.key'), toHex((key ?? devnetKey('validator', 0)).secretKey));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const node = await startNodeProcess([
    '--role',
    'validator',
    '--network',
    'consnet',
    '--genesis',
    genesisFile,
    '--data-dir',
    join(dir, 'data'),
    '--bind',
    '127.0.0.1:0',
    '--config',
    join(dir, 'config.json'),
    ...(bootstrap.length ? ['--bootstrap-peers', bootstrap.join(',')] : []),
  ]);
  dirs.set(node, dir);
  return node;
}

/** What a node said last, blocks made and imported left out: why it is stuck, when a test waits for it in vain. */
const lastWords = (node: RunningNode): string =>
  node
    .output()
    .split('\n')
    .filter((line) => !/"(imported|produced) block/.test(line))
    .slice(-15)
    .join('\n');
const p2pOf = (node: RunningNode): string =>
  /p2p listening on (\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/\w+)/.exec(node.output())![1]!;
const heightOf = async (node: RunningNode): Promise<number> => new SvcClient(node.url).blockNumber();

beforeAll(async () => {
  genesis = await validator(undefined, []);
  await waitFor(
    () => genesis.output(),
    (out) => /p2p listening on/.test(out),
    10_000,
    'the genesis validator',
  );
  v = new SvcClient(genesis.url);
  for (const key of stakers) others.push(await validator(key, [p2pOf(genesis)]));
  for (const key of stakers)
    await v.waitForTransaction((await v.transfer(devnetKey('account', 0), key.address, 'OGT', 50n * UNIT)).hash);
  for (const key of stakers)
    await v.waitForTransaction(
      (await v.createValidator(key, { stake: 20n * UNIT, moniker: key.address.slice(0, 10) })).hash,
    );
}, 120_000);
const started: RunningNode[] = [];
afterAll(async () => {
  await Promise.all([genesis, ...others, ...started].map((node) => node?.stop('SIGKILL')));
});

/** Every node's block hash and state root at each height in [from, to]: one of each per height. */
async function agreeing(nodes: RunningNode[], from: number, to: number): Promise<void> {
  for (const node of nodes)
    await waitFor(
      () => heightOf(node),
      (h) => h >= to,
      60_000,
      `block ${to} on ${node.url}`,
    ).catch(async (error: unknown) => {
      const states = await Promise.all(
        nodes.map((n) => new SvcClient(n.url).consensusState().catch((e: unknown) => String(e))),
      );
      throw new Error(
        `${(error as Error).message}\n${nodes.map((n, i) => `${n.url}: ${JSON.stringify(states[i])}\n${lastWords(n)}`).join('\n')}`,
      );
    });
  for (let height = from; height <= to; height++) {
    const blocks = await Promise.all(nodes.map((node) => new SvcClient(node.url).getBlockByNumber(height)));
    expect(new Set(blocks.map((b) => b.hash)).size, `block ${height}`).toBe(1);
    expect(new Set(blocks.map((b) => b.stateRoot)).size, `state root at ${height}`).toBe(1);
  }
}

describe('consensus among staked validators (processes)', { timeout: 180_000 }, () => {
  it('four validators at equal stake: the same block hash and state root at every height on every node', async () => {
    const set = await waitFor(
      () => v.validators(),
      (s) => s.validators.length === 4,
      60_000,
      'the set of four (next epoch)',
    );
    expect(new Set(set.validators.map((m) => m.power))).toEqual(new Set(['20']));
    const from = set.height + 1;
    await agreeing([genesis, ...others], from, from + 15);
    // Blocks by consensus come from all four, in turn.
    const proposers = new Set<string>();
    for (let height = from; height <= from + 15; height++) proposers.add((await v.getBlockByNumber(height)).proposer);
    expect(proposers.size).toBe(4);
    // Each block is final by precommits of more than 2/3 of the power (3 of 4 at least), and the next block carries them.
    for (let height = from; height < from + 15; height++) {
      const [commit, next] = await Promise.all([v.getCommit(height), v.getBlockByNumber(height + 1)]);
      expect(commit.signatures.length).toBeGreaterThanOrEqual(3);
      expect(next.lastCommit!.blockHash).toBe((await v.getBlockByNumber(height)).hash);
      expect(next.lastCommit!.signatures.length).toBeGreaterThanOrEqual(3);
    }
    const state = await new SvcClient(others[0]!.url).rpcCall<Record<string, unknown>>('svc_consensusState');
    expect(state).toMatchObject({
      mode: 'consensus',
      onlinePower: '80',
      totalPower: '80',
      lockedRound: expect.any(Number),
      step: expect.stringMatching(/^(propose|prevote|precommit)$/),
    });
    // The logs at info: no line a block, a summary every few seconds; "caught up" only after a real sync.
    for (const node of [genesis, ...others]) {
      const lines = node.output().split('\n');
      expect(lines.filter((line) => /"msg":"(produced|imported) block/.test(line))).toEqual([]);
      expect(lines.filter((line) => /"msg":"caught up with peers"/.test(line)).length).toBeLessThanOrEqual(2);
    }
    await waitFor(
      () => genesis.output(),
      (out) => /"msg":"head \d+: \d+ blocks? in \d+ s \(/.test(out),
      20_000,
      'a summary line',
    );
  });

  it('a validator paused (SIGSTOP) while its peers commit, 8 times, resumes on their blocks without crashing and keeps voting', async () => {
    for (let pause = 0; pause < 8; pause++) {
      const node = others[pause % others.length]!;
      const before = await heightOf(genesis);
      node.child.kill('SIGSTOP');
      try {
        // The other three (3/4 of the power) go on: a block or two passes the paused one by.
        await waitFor(
          () => heightOf(genesis),
          (h) => h >= before + 2 + (pause % 3),
          30_000,
          `the others past block ${before} with ${node.url} paused`,
        );
      } finally {
        node.child.kill('SIGCONT');
      }
      const top = await heightOf(genesis);
      await waitFor(
        () => heightOf(node),
        (h) => h >= top,
        30_000,
        `${node.url} back to block ${top}`,
      );
      expect(node.child.exitCode, lastWords(node)).toBeNull();
    }
    const top = await heightOf(genesis);
    await agreeing([genesis, ...others], top - 10, top + 2);
    for (const node of others) expect(node.output()).not.toMatch(/RangeError|uncaught/i);
  });

  let victim: RunningNode;
  let victimKey: KeyPair | undefined;
  let alive: RunningNode[];

  it('goes on with one of four killed (SIGKILL): the proposer of the next block', async () => {
    const nodes = [genesis, ...others];
    const operators: string[] = [(await v.getBlockByNumber(0)).proposer, ...stakers.map((k) => k.address)];
    const { nextProposer, height } = await v.validators();
    const index = operators.indexOf(nextProposer);
    victim = nodes[index]!;
    victimKey = index === 0 ? undefined : stakers[index - 1];
    await victim.stop('SIGKILL');
    alive = nodes.filter((node) => node !== victim);
    await agreeing(alive, height + 1, height + 12);
    // The others see it gone: the power heard from lately drops to three quarters.
    await waitFor(
      () => new SvcClient(alive[0]!.url).rpcCall<{ onlinePower: string }>('svc_consensusState'),
      (s) => s.onlinePower === '60',
      15_000,
      'online power to drop to 60',
    );
    // Each of its turns costs a propose timeout (one block time) and a new round: recorded, not asserted.
    const client = new SvcClient(alive[0]!.url);
    const [first, last] = await Promise.all([
      client.getBlockByNumber(height + 1),
      client.getBlockByNumber(height + 12),
    ]);
    // Metrics tell it: rounds and votes counted, proposal-to-commit latency observed, and the dead validator's missed blocks.
    const metrics = await (await fetch(`${alive[0]!.url}/metrics`)).text();
    const value = (pattern: RegExp): number => Number(pattern.exec(metrics)?.[1] ?? NaN);
    expect(value(/^svc_consensus_rounds_total (\d+)/m)).toBeGreaterThan(12);
    expect(value(/^svc_consensus_votes_total\{type="precommit",direction="out"\} (\d+)/m)).toBeGreaterThan(0);
    expect(value(/^svc_consensus_votes_total\{type="prevote",direction="in"\} (\d+)/m)).toBeGreaterThan(0);
    expect(value(/^svc_consensus_proposal_to_commit_seconds_count\{round="0"\} (\d+)/m)).toBeGreaterThan(0);
    // Buckets fine enough between 1 and 2.5 s for a loaded network's p99 to be read, not guessed.
    for (const bound of ['1', '1.25', '1.5', '2', '2.5'])
      expect(metrics).toMatch(
        new RegExp(
          `^svc_consensus_proposal_to_commit_seconds_bucket\\{le="${bound.replace('.', '\\.')}",round="0"\\} \\d+$`,
          'm',
        ),
      );
    const victimOperator = operators[index]!;
    expect(
      value(new RegExp(`^svc_staking_missed_blocks\\{validator="${victimOperator}"\\} (\\d+)`, 'm')),
    ).toBeGreaterThanOrEqual(5);
    process.stdout.write(
      `consensus with one of four down: mean block interval ${((last.timestamp - first.timestamp) / 11).toFixed(0)} ms at a ${BLOCK_MS} ms block time\n`,
    );
  });

  it('commits nothing and diverges nowhere for 10 s with two of four down, and goes on once one is back on its data', async () => {
    const second = alive.pop()!;
    await second.stop('SIGKILL');
    const stoppedAt = await Promise.all(alive.map(heightOf));
    // A block made before the kill may still land: allow one, then nothing for 10 s (some 30 block
    // times, a dozen rounds with their growing timeouts).
    const ceiling = Math.max(...stoppedAt) + 1;
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const heights = await Promise.all(alive.map(heightOf));
      expect(Math.max(...heights), 'no block without more than 2/3 of the power').toBeLessThanOrEqual(ceiling);
      // Watching for 10 s is the check itself: a look each second.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const top = Math.min(...(await Promise.all(alive.map(heightOf))));
    await agreeing(alive, 1, top);
    // The first one killed comes back on its own data dir, joining the ones still up.
    const back = await validator(victimKey, alive.map(p2pOf), dirs.get(victim));
    started.push(back);
    const resumed = Date.now();
    await waitFor(
      () => heightOf(alive[0]!),
      (h) => h > ceiling,
      15_000,
      'commits to resume within 15 s',
    );
    process.stdout.write(`consensus resumed ${Date.now() - resumed} ms after a third validator came back\n`);
    await agreeing([...alive, back], ceiling - 2, ceiling + 3);
  });

  let fifth: KeyPair;
  let fifthNode: RunningNode;

  it('takes in a fifth validator that stakes 20 OGT: pending, in the set from the next epoch, proposing its share', async () => {
    fifth = generateKeyPair();
    const client = new SvcClient(alive[0]!.url);
    const node = await validator(fifth, alive.map(p2pOf));
    fifthNode = node;
    started.push(node);
    await client.waitForTransaction(
      (await client.transfer(devnetKey('account', 1), fifth.address, 'OGT', 50n * UNIT)).hash,
    );
    await client.waitForTransaction(
      (await client.createValidator(fifth, { stake: 20n * UNIT, moniker: 'fifth' })).hash,
    );
    // Pending until an epoch ends (the transaction may itself land in the block that ends one).
    const status = await client.stakingStatus(fifth.address);
    if (status.status === 'pending') expect(status.inSet).toBe(false);
    else expect(status.status === 'active' && status.joinedAt! >= status.createdAt).toBe(true);
    const set = await waitFor(
      () => client.validators(),
      (s) => s.validators.length === 5,
      60_000,
      'the set of five (next epoch)',
    );
    expect(await client.stakingStatus(fifth.address)).toMatchObject({ status: 'active', inSet: true });
    // 25 blocks: a fifth of the power proposes about a fifth of them (the killed validator's turns go to the next round's proposer).
    const from = set.height + 1;
    await agreeing([...alive, node], from, from + 24);
    let mine = 0;
    for (let height = from; height <= from + 24; height++)
      if ((await client.getBlockByNumber(height)).proposer === fifth.address) mine++;
    expect(mine).toBeGreaterThanOrEqual(3);
    expect(mine).toBeLessThanOrEqual(9);
  });

  it('a validator killed (SIGKILL) right after it signs, 20 times in a row, never signs two votes for one step: no evidence against it, one chain', async () => {
    // Four of the five are up (one stays down from before): each kill stops commits until it is back, so every restart resumes mid-height.
    const others = [...alive, ...started.filter((node) => node !== fifthNode)];
    const dir = dirs.get(fifthNode)!;
    const signState = join(dir, 'data', 'consensus-sign-state.json');
    const from = await heightOf(others[0]!);
    let node = fifthNode;
    for (let kill = 0; kill < 20; kill++) {
      const before = existsSync(signState) ? readFileSync(signState, 'utf8') : '';
      // The signing state is written (and synced) before a signature leaves the node: a change is the moment right after a signature.
      await waitFor(
        () => (existsSync(signState) ? readFileSync(signState, 'utf8') : ''),
        (now) => now !== before,
        30_000,
        `signature ${kill + 1}`,
      ).catch(async (error: unknown) => {
        // What the restarted node said: why it signs nothing.
        const all = [...others, node];
        const states = await Promise.all(
          all.map((n) => new SvcClient(n.url).consensusState().catch((e: unknown) => String(e))),
        );
        throw new Error(
          `${(error as Error).message}\n${lastWords(node)}\nconsensus states (the others, then it): ${all.map((n, i) => `${n.url} ${JSON.stringify(states[i])}`).join('\n')}`,
        );
      });
      await node.stop('SIGKILL');
      node = await validator(fifth, others.map(p2pOf), dir);
      started.push(node);
    }
    const to = (await heightOf(others[0]!)) + 2;
    await agreeing([...others, node], from, to);
    // No node saw two different votes of it, and the chain holds no evidence against it.
    for (const other of [...others, node]) expect(other.output()).not.toContain('two different signed votes');
    expect(await new SvcClient(others[0]!.url).stakingStatus(fifth.address)).toMatchObject({
      status: 'active',
      inSet: true,
      tombstonedAt: null,
    });
  });
});
