import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Chain } from '../../../chain/chain.js';
import { devnetBaseGenesis } from '../../../chain/genesis.js';
import { knownRulesVersions, NEWEST_RULES_VERSION } from '../../../chain/rules-version.js';
import { devnetKey, formatAmountShort, SvcClient } from '../../../sdk/index.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';

const running = new Set<TestNode>();
afterEach(async () => {
  for (const node of running) await node.stop();
  running.clear();
});
async function start(config: Parameters<typeof startTestNode>[0]): Promise<TestNode> {
  const node = await startTestNode(config);
  running.add(node);
  return node;
}
async function stop(node: TestNode): Promise<void> {
  running.delete(node);
  await node.stop();
}
const headOf = (node: TestNode): number => node.node.service<Chain>('chain').head.height;

describe('a node at a height it must not pass', () => {
  it('a lone validator adopts a plan for a version its release lacks at once, stops before its height asking to exit with code 3, and a restart refuses with the same words', async () => {
    const dataDir = tempDir();
    const node = await start({ dataDir, validator: { blockTime: 50 } });
    const client = new SvcClient(node.url);
    await waitFor(
      () => headOf(node),
      (h) => h >= 2,
      10_000,
      'height 2',
    );
    const height = headOf(node) + 15;
    const sent = await client.proposeUpgrade(devnetKey('validator', 0), { version: 99, height, name: 'far-away' });
    expect((await client.waitForTransaction(sent.hash, { pollMs: 20 })).status).toBe('success');
    expect(await client.getUpgradePlan()).toMatchObject({
      planId: 1,
      name: 'far-away',
      version: 99,
      height,
      proposer: devnetKey('validator', 0).address,
      approvals: [devnetKey('validator', 0).address],
      approvedStake: '20',
      bondedStake: '20',
      adopted: true,
    });
    expect((await client.chainInfo()).rulesSchedule).toEqual([
      { version: NEWEST_RULES_VERSION, height: 0 },
      { version: 99, height },
    ]);
    expect(node.logs.text()).toContain(
      `this release does not implement chain rules version 99 (it implements ${knownRulesVersions()}): it will stop before block ${height}`,
    );
    const reason = `block ${height} runs chain rules version 99, which this release does not implement (it implements ${knownRulesVersions()}): install a release that does, then start the node again on the same data dir`;
    expect(await node.node.exitRequested).toEqual({ plugin: 'chain', reason, exitCode: 3 });
    expect(headOf(node)).toBe(height - 1);
    expect((await client.chainInfo()).rulesVersion).toBe(99);
    await stop(node);
    await expect(start({ dataDir, validator: { blockTime: 50 } })).rejects.toMatchObject({
      name: 'ChainHaltError',
      message: reason,
      exitCode: 3,
    });
  });

  it('--halt-height stops before that block asking to exit 0, again at a start with it; without it the chain goes on', async () => {
    const dataDir = tempDir();
    const node = await start({ dataDir, validator: { blockTime: 30 }, chain: { haltHeight: 6 } });
    const reason = 'halt height 6 reached: stopped before block 6, as --halt-height asked';
    expect(await node.node.exitRequested).toEqual({ plugin: 'chain', reason, exitCode: 0 });
    expect(headOf(node)).toBe(5);
    await stop(node);
    await expect(start({ dataDir, chain: { haltHeight: 6 } })).rejects.toMatchObject({ message: reason, exitCode: 0 });
    const again = await start({ dataDir, validator: { blockTime: 30 } });
    await waitFor(
      () => headOf(again),
      (h) => h >= 7,
      10_000,
      'blocks past the halt height',
    );
  });

  it('on a network that started on version 5, the upgrade kinds do not exist yet: refused at submission', async () => {
    const base = devnetBaseGenesis();
    const file = join(tempDir(), 'genesis.json');
    writeFileSync(
      file,
      JSON.stringify({
        chainId: 'svc-five-1',
        rulesVersion: 5,
        timestamp: base.timestamp,
        validatorKey: base.validatorKey,
        validator: base.validator,
        accounts: base.accounts.slice(0, 2).map((a) => ({ address: a.address, omc: formatAmountShort(a.omc) })),
      }),
    );
    const node = await start({ genesis: file, storage: 'memory' });
    const client = new SvcClient(node.url);
    expect(await client.chainInfo()).toMatchObject({
      rulesVersion: 5,
      rulesSchedule: [{ version: 5, height: 0 }],
      knownRulesVersions: knownRulesVersions().split(', ').map(Number),
    });
    await expect(
      client.proposeUpgrade(devnetKey('validator', 0), { version: 6, height: 100 }, { chainId: 'svc-five-1' }),
    ).rejects.toMatchObject({
      message: 'invalid_transaction',
      data: {
        reason: 'transaction kind "upgrade.propose" exists from chain rules version 6; the next block runs version 5',
      },
    });
  });
});
