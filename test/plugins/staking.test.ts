import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, SvcClient, toHex, UNIT } from '../../sdk/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { DEFAULT_EPOCH_BLOCKS } from '../../plugins/staking/params.js';
import { expectFollowerAgrees } from '../helpers/follower.js';
import { failure } from '../helpers/rpc-failure.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { run, SVC } from '../helpers/cli.js';

// The genesis validator (200 ms blocks: an epoch of 20 blocks is 4 s), and validator nodes for the
// stakers (alice, and dev account 5 staked from the CLI), which follow until their keys are in the
// set and then run consensus with it: a staker whose node is down would hold up the chain, as it should.
let node: TestNode;
let client: SvcClient;
const alice = generateKeyPair();
const bob = generateKeyPair();
const stakerNodes: TestNode[] = [];

async function validatorNode(secretKey: Uint8Array): Promise<TestNode> {
  const keyFile = join(tempDir(), 'validator.key');
  writeFileSync(keyFile, toHex(secretKey));
  const started = await startTestNode({
    validator: { blockTime: 200, keyFile },
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [node.node.service<P2pService>('p2p').listenAddresses[0]!] },
  });
  stakerNodes.push(started);
  return started;
}

const chainOf = (n: TestNode): Chain => n.node.service<Chain>('chain');

async function mined(send: Promise<{ hash: string }>): Promise<string> {
  const receipt = await client.waitForTransaction((await send).hash);
  return receipt.status === 'success' ? 'success' : `${receipt.error?.name}: ${receipt.error?.reason}`;
}

/** Waits for the end of the epoch after the current head (the set changes there). */
const nextEpoch = async (): Promise<void> => {
  const { nextChangeAt } = await client.validators();
  await waitFor(
    () => chainOf(node).head.height,
    (h) => h > nextChangeAt,
    20_000,
    `block ${nextChangeAt} (an epoch's end)`,
  );
};

beforeAll(async () => {
  node = await startTestNode({ validator: { blockTime: 200 } });
  client = new SvcClient(node.url);
  for (const who of [alice, bob])
    await client.waitForTransaction(
      (await client.transfer(devnetKey('account', 0), who.address, 'OGT', 100n * UNIT)).hash,
    );
  await validatorNode(alice.secretKey);
  await validatorNode(devnetKey('account', 5).secretKey);
}, 60_000);
afterAll(async () => {
  await Promise.all(stakerNodes.map((n) => n.stop()));
  await node?.stop();
});

/** Blocks keep coming, and every validator node has the same block at a height past `from`. */
async function chainGoesOn(from: number): Promise<void> {
  const height = from + 5;
  for (const n of [node, ...stakerNodes])
    await waitFor(
      () => chainOf(n).head.height,
      (h) => h >= height,
      30_000,
      `block ${height} on every validator node`,
    );
  const hashes = await Promise.all(
    [node, ...stakerNodes].map(async (n) => (await new SvcClient(n.url).getBlockByNumber(height)).hash),
  );
  expect(new Set(hashes).size).toBe(1);
}

describe('staking', { timeout: 60_000 }, () => {
  it('starts with the genesis validator alone in the set, proposing every block', async () => {
    const set = await client.validators();
    expect(set.epochBlocks).toBe(DEFAULT_EPOCH_BLOCKS);
    expect(set.validators).toEqual([
      {
        operator: chainOf(node).genesis.validator,
        consensusKey: chainOf(node).genesis.validatorKey,
        moniker: null,
        power: '20',
        proposerPriority: '0',
        status: 'active',
        genesis: true,
      },
    ]);
    expect(set.nextProposer).toBe(chainOf(node).genesis.validator);
  });

  it('refuses a stake of 14 or 29 OGT with stake_out_of_range naming the range, and bonds nothing', async () => {
    for (const stake of [14n, 29n]) {
      const error = await failure(client.createValidator(alice, { stake: stake * UNIT, moniker: 'alice' }));
      expect(error.message).toBe('stake_out_of_range');
      expect(error.data).toMatchObject({ minimum: 15, maximum: 28 });
      expect(error.data?.reason).toContain(`is ${stake} OGT: a validator's stake is 15 to 28 OGT`);
    }
    expect((await client.getBalance(alice.address)).bonded.stake).toBeUndefined();
    expect((await failure(client.stakingStatus(alice.address))).message).toBe('not_validator');
  });

  it('makes a staker pending, then a member of the set from the next epoch with its stake as power', async () => {
    expect(await mined(client.createValidator(alice, { stake: 20n * UNIT, moniker: 'alice' }))).toBe('success');
    expect(await client.stakingStatus(alice.address)).toMatchObject({
      status: 'pending',
      stake: '20',
      inSet: false,
      consensusKey: toHex(alice.publicKey),
      moniker: 'alice',
    });
    expect((await client.getBalance(alice.address)).bonded.stake).toBe(20n * UNIT);
    await nextEpoch();
    expect(await client.stakingStatus(alice.address)).toMatchObject({
      status: 'active',
      inSet: true,
      joinedAt: expect.any(Number),
    });
    // Two validators now: blocks come by consensus between the genesis validator's node and alice's.
    await chainGoesOn(chainOf(node).head.height);
    expect(((await (await fetch(`${stakerNodes[0]!.url}/health?verbose`)).json()) as { mode: string }).mode).toBe(
      'consensus',
    );
    const set = await client.validators();
    expect(set.totalPower).toBe('40');
    expect(set.validators.map((v) => [v.operator, v.power]).sort()).toEqual(
      [
        [alice.address, '20'],
        [chainOf(node).genesis.validator, '20'],
      ].sort(),
    );
  });

  it('refuses a second validator on one consensus key, a second record for one operator, and stake past 28 OGT', async () => {
    const sameKey = await mined(
      client.createValidator(bob, { stake: 15n * UNIT, moniker: 'bob', consensusKey: toHex(alice.publicKey) }),
    );
    expect(sameKey).toMatch(/^invalid_params: the consensus key .* is another validator's/);
    expect(await mined(client.createValidator(alice, { stake: 15n * UNIT, moniker: 'again' }))).toMatch(
      /^invalid_params: .* is already a validator/,
    );
    expect(await mined(client.addStake(alice, 9n * UNIT))).toMatch(/^stake_out_of_range: the stake with it is 29 OGT/);
    expect(await mined(client.addStake(alice, 5n * UNIT))).toBe('success');
    expect((await client.stakingStatus(alice.address)).stake).toBe('25');
    await nextEpoch();
    expect((await client.validators()).validators.find((v) => v.operator === alice.address)?.power).toBe('25');
    expect(await mined(client.addStake(bob, UNIT))).toMatch(/^not_validator: /);
  });

  it('stakes, lists and shows a validator from the svc CLI, and refuses a stake typed wrong in one line', async () => {
    const dev = devnetKey('account', 5);
    const created = await run(SVC, [
      '--url',
      node.url,
      'validator',
      'create',
      '--stake',
      '15.5',
      '--moniker',
      'from the cli',
      '--dev-account',
      '5',
      '--wait',
    ]);
    // Only the line that names what it waits for.
    expect(created.stderr).toMatch(
      /^(transaction|job|deal) \S+ submitted; waiting \(Ctrl-C stops waiting, not the (transaction|job|deal)\)\n$/,
    );
    expect(created.stdout).toContain(`validator ${dev.address}: pending, in the set from the next epoch`);
    expect(created.stdout).toMatch(/stake +15\.5 OGT/);
    const notJailed = await run(SVC, ['--url', node.url, 'validator', 'unjail', '--dev-account', '5', '--wait']);
    expect(notJailed.code).toBe(1);
    expect(notJailed.stdout).toMatch(/failed: not_validator: svc1\w+ is not a jailed validator/);
    const genesisStatus = await run(SVC, ['--url', node.url, 'validator', 'status', chainOf(node).genesis.validator]);
    expect(genesisStatus.stdout).toMatch(
      /: active\nmoniker +genesis\nstake +0 OGT \(the genesis validator: in the set without a stake\)\nin the set +yes\nmissed blocks +\d+ of the last 100 \(jailed past 50\)/,
    );
    const listed = await run(SVC, ['--url', node.url, 'validator', 'list']);
    expect(listed.stdout).toMatch(/^\d+ validator\(s\), [0-9.]+ OGT of power at block \d+; next proposer svc1/);
    const tooSmall = await run(SVC, ['--url', node.url, 'validator', 'create', '--stake', '14', '--dev-account', '6']);
    expect(tooSmall.code).not.toBe(0);
    expect(tooSmall.stderr).toMatch(/stake_out_of_range.*15 to 28 OGT/);
    const typo = await run(SVC, ['--url', node.url, 'validator', 'create', '--stake', '1e1', '--dev-account', '6']);
    expect({ code: typo.code, stderr: typo.stderr.trim() }).toEqual({
      code: 2,
      stderr:
        'svc: --stake: expected an amount of OGT like 1.5, with at most 18 fractional digits and no sign, got "1e1"',
    });
    await nextEpoch();
    expect((await client.validators()).validators).toHaveLength(3);
    await chainGoesOn(chainOf(node).head.height);
  });

  it('unbonds: out of the set at the next epoch, the stake back after the unbonding period, then no record', async () => {
    const before = await client.getBalance(alice.address);
    expect(await mined(client.unbondValidator(alice))).toBe('success');
    const unbonding = await client.stakingStatus(alice.address);
    expect(unbonding).toMatchObject({ status: 'unbonding', releaseAt: expect.any(Number) });
    expect(await mined(client.unbondValidator(alice))).toMatch(/^invalid_params: .* already unbonding/);
    await nextEpoch();
    expect((await client.validators()).validators.map((v) => v.operator).sort()).toEqual(
      [chainOf(node).genesis.validator, devnetKey('account', 5).address].sort(),
    );
    await waitFor(
      () => chainOf(node).head.height,
      (h) => h >= unbonding.releaseAt!,
      20_000,
      'the release block',
    );
    const after = await waitFor(
      () => client.getBalance(alice.address),
      (b) => b.bonded.stake === undefined,
      10_000,
      'the stake to return',
    );
    expect(after.ogt).toBe(before.ogt + 25n * UNIT);
    expect((await failure(client.stakingStatus(alice.address))).message).toBe('not_validator');
  });

  it('brings a node synced from genesis to the same state root, stakes and sets included', async () => {
    await expectFollowerAgrees(node);
  });
});
