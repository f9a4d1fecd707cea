import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, generateKeyPair, SvcClient, toHex, UNIT, type KeyPair } from '../../sdk/index.js';
import { signWith } from '../../sdk/keys.js';
import { encode } from '../../sdk/encoding.js';
import { voteSignBytes } from '../../consensus/messages.js';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';

// A network of five validators at equal power (the genesis validator and four stakers), with short
// epochs and a short liveness window, so that a double sign and a validator gone dark both cost what
// the rules say within seconds.
const BLOCK_MS = 250;
const genesisKey = devnetKey('validator', 0);
const stakers: KeyPair[] = [generateKeyPair(), generateKeyPair(), generateKeyPair(), generateKeyPair()];
const reporter = generateKeyPair();
const [, , equivocator, sleeper] = stakers as [KeyPair, KeyPair, KeyPair, KeyPair];
const dir = tempDir();
const genesisFile = join(dir, 'genesis.json');
const LIVENESS = { livenessWindow: 12, maxMissedBlocks: 6, jailBlocks: 20 };

let genesisNode: TestNode;
let client: SvcClient;
/** Each staker's node, by its key; an observer node the test injects votes through. */
const nodes = new Map<KeyPair, TestNode>();
let observer: TestNode;

const keyFile = (key: KeyPair): string => {
  const file = join(tempDir(), 'validator.key');
  writeFileSync(file, toHex(key.secretKey));
  return file;
};
const bootstrap = (): string[] => [genesisNode.node.service<P2pService>('p2p').listenAddresses[0]!];
const testnet = { network: 'slashnet', genesis: genesisFile };
const startValidator = (key: KeyPair, dataDir?: string): Promise<TestNode> =>
  startTestNode({
    ...testnet,
    ...(dataDir ? { dataDir } : {}),
    validator: { blockTime: BLOCK_MS, keyFile: keyFile(key) },
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: bootstrap() },
  });
const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');

beforeAll(async () => {
  writeFileSync(
    genesisFile,
    JSON.stringify({
      chainId: 'svc-slashnet-1',
      timestamp: Date.now() - 60_000,
      validatorKey: toHex(genesisKey.publicKey),
      validator: genesisKey.address,
      accounts: [...stakers, reporter].map((k) => ({ address: k.address, omc: '10', ogt: '100' })),
      epochBlocks: 10,
      unbondingBlocks: 50,
      ...LIVENESS,
    }),
  );
  genesisNode = await startTestNode({ ...testnet, validator: { blockTime: BLOCK_MS, keyFile: keyFile(genesisKey) } });
  client = new SvcClient(genesisNode.url);
  for (const key of stakers) nodes.set(key, await startValidator(key));
  observer = await startTestNode({
    ...testnet,
    role: 'full',
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: bootstrap() },
  });
  for (const key of stakers)
    await client.waitForTransaction(
      (await client.createValidator(key, { stake: 20n * UNIT, moniker: key.address.slice(0, 10) })).hash,
    );
  await waitFor(
    () => client.validators(),
    (set) => set.validators.length === 5,
    30_000,
    'the set of five (next epoch)',
  );
}, 90_000);
afterAll(async () => {
  await Promise.all([...nodes.values(), observer].map((node) => node?.stop()));
  await genesisNode?.stop();
});

/** A vote signed with `key` as a test-only signer would: the validator's own consensus key, used outside its node. */
function forgedPrevote(key: KeyPair, height: number, round: number, value: string) {
  const vote = { type: 'prevote' as const, height, round, value, validator: key.address };
  return { ...vote, signature: toHex(signWith(key, voteSignBytes('svc-slashnet-1', vote))) };
}

describe('evidence, slashing and jailing', { timeout: 120_000 }, () => {
  it('two conflicting signed prevotes injected on the network: evidence lands within 5 blocks, the validator is slashed 5% and removed for good', async () => {
    const topic = observer.node.service<P2pService>('p2p').gossipTopic('consensus/2', () => 'ignore');
    const injectedAt = chainOf(genesisNode).head.height;
    const bonded = (await client.getBalance(equivocator.address)).bonded.stake!;
    const reporterBefore = await client.getBalance(reporter.address);
    // Both votes for the height the validators are deciding and the one after (a later round, so no
    // round is cut short; the next height too because a busy machine may decide this one before the
    // votes get there), sent again each poll until a validator took them in.
    const evidence = await waitFor(
      async () => {
        const next = chainOf(genesisNode).head.height + 1;
        for (const height of [next, next + 1])
          for (const value of [`0x${'a1'.repeat(32)}`, `0x${'b2'.repeat(32)}`])
            topic.publish(
              encode({ kind: 'vote', vote: forgedPrevote(equivocator, height, 3, value), sentAt: Date.now() }),
            );
        return (await client.stakingStatus(equivocator.address)).status;
      },
      (status) => status === 'tombstoned',
      20_000,
      'the equivocator to be tombstoned',
    );
    expect(evidence).toBe('tombstoned');
    const status = await client.stakingStatus(equivocator.address);
    expect(status.tombstonedAt! - injectedAt, 'blocks from injection to evidence').toBeLessThanOrEqual(5);
    expect(status.stake).toBe('19');
    expect(status.inSet).toBe(false);
    expect((await client.getBalance(equivocator.address)).bonded.stake).toBe(bonded - UNIT);
    // The evidence transaction is in the block that tombstoned it; its sender got the slashed OGT.
    const block = await client.getBlockByNumber(status.tombstonedAt!);
    const kinds = await Promise.all(block.transactions.map(async (hash) => (await client.getTransaction(hash)).kind));
    expect(kinds).toContain('staking.submitEvidence');
    const submitter = (await Promise.all(block.transactions.map((hash) => client.getTransaction(hash)))).find(
      (tx) => tx.kind === 'staking.submitEvidence',
    )!.from;
    expect(submitter).not.toBe(reporter.address);
    expect((await client.getBalance(reporter.address)).ogt).toBe(reporterBefore.ogt);
    // Out of the set from the next block on, and for good: the chain goes on with the four others.
    const set = await client.validators();
    expect(set.validators.map((v) => v.operator)).not.toContain(equivocator.address);
    const after = chainOf(genesisNode).head.height;
    await waitFor(
      () => chainOf(genesisNode).head.height,
      (h) => h >= after + 12,
      20_000,
      'blocks past the next epoch',
    );
    expect((await client.validators()).validators.map((v) => v.operator)).not.toContain(equivocator.address);
    // The same evidence again is refused: a validator is punished once.
    const again = await client.submitEvidence(
      reporter,
      forgedPrevote(equivocator, status.tombstonedAt!, 0, `0x${'c3'.repeat(32)}`),
      forgedPrevote(equivocator, status.tombstonedAt!, 0, `0x${'d4'.repeat(32)}`),
    );
    const receipt = await client.waitForTransaction(again.hash);
    expect(receipt.error?.reason).toMatch(/already been punished/);
    // A node of its own never signs for it again: its votes no longer count (it is not in the set).
    await nodes.get(equivocator)!.stop();
    nodes.delete(equivocator);
  });

  it('refuses evidence that proves nothing: votes that agree, of two validators, or not signed by the validator', async () => {
    const height = chainOf(genesisNode).head.height;
    const [a, b] = stakers as [KeyPair, KeyPair];
    const same = forgedPrevote(a, height, 0, `0x${'11'.repeat(32)}`);
    await expect(client.submitEvidence(reporter, same, same)).rejects.toMatchObject({
      message: 'invalid_params',
      data: { reason: expect.stringMatching(/same value/) },
    });
    await expect(
      client.submitEvidence(reporter, same, forgedPrevote(b, height, 0, `0x${'22'.repeat(32)}`)),
    ).rejects.toMatchObject({
      message: 'invalid_params',
      data: { reason: expect.stringMatching(/different validators/) },
    });
    const unsigned = {
      ...forgedPrevote(a, height, 0, `0x${'22'.repeat(32)}`),
      signature: toHex(signWith(reporter, new Uint8Array([1]))),
    };
    const tx = await client.submitEvidence(reporter, same, unsigned);
    expect((await client.waitForTransaction(tx.hash)).error?.reason).toMatch(/not both signed by/);
    expect((await client.stakingStatus(a.address)).status).toBe('active');
  });

  it('jails a validator whose node is down for more than the allowed misses of the window; it unjails after its jail time and rejoins at the next epoch', async () => {
    const sleeperNode = nodes.get(sleeper)!;
    const dataDir = sleeperNode.dataDir;
    await sleeperNode.node.stop();
    // Jailing takes a number of missed blocks, which a busy machine makes more slowly: the bound is in time only as a backstop.
    const jailed = await waitFor(
      () => client.stakingStatus(sleeper.address),
      (s) => s.status === 'jailed',
      90_000,
      'the sleeper to be jailed',
    );
    expect(jailed.inSet).toBe(false);
    expect(jailed.missedBlocks).toBe(0);
    expect(jailed.stake).toBe('20');
    // Too early: refused with the block it may unjail from.
    const early = await client.unjailValidator(sleeper);
    const refused = await client.waitForTransaction(early.hash);
    expect(refused.error?.reason).toMatch(new RegExp(`jailed until block ${jailed.jailedUntil}`));
    // Its node comes back on its data dir; after the jail time it unjails and is in the set from the next epoch.
    nodes.set(sleeper, await startValidator(sleeper, dataDir));
    await waitFor(
      () => chainOf(genesisNode).head.height,
      (h) => h >= jailed.jailedUntil!,
      30_000,
      'the jail time to pass',
    );
    const unjail = await client.unjailValidator(sleeper);
    expect((await client.waitForTransaction(unjail.hash)).status).toBe('success');
    const back = await waitFor(
      () => client.stakingStatus(sleeper.address),
      (s) => s.inSet,
      30_000,
      'the sleeper back in the set',
    );
    expect(back.status).toBe('active');
    // Every validator node agrees on the chain meanwhile.
    const height = chainOf(genesisNode).head.height + 3;
    for (const node of [genesisNode, ...nodes.values()])
      await waitFor(
        () => chainOf(node).head.height,
        (h) => h >= height,
        30_000,
        `block ${height}`,
      );
    const hashes = await Promise.all(
      [genesisNode, ...nodes.values()].map(async (node) => (await chainOf(node).getBlock(height))!.hash),
    );
    expect(new Set(hashes).size).toBe(1);
  }, 240_000);
});
