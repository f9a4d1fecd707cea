import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { devnetKey, SvcClient, UNIT } from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { run, SVC_NODE } from '../helpers/cli.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';
import { failure } from '../helpers/rpc-failure.js';

const running: TestNode[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(running.map((node) => node.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('archive capability', () => {
  it('an archive node answers old receipts and balances that a windowed node prunes; the flag stays until `svc-node prune`', async () => {
    const validator = await startTestNode({ validator: { blockTime: 20 }, chain: { historyBlocks: 5 } });
    running.push(validator);
    const bootstrap = {
      host: '127.0.0.1',
      port: 0,
      bootstrapPeers: [validator.node.service<P2pService>('p2p').listenAddresses[0]!],
    };
    const archiveDir = tempDir();
    dirs.push(archiveDir);
    const archiveConfig = {
      role: 'full',
      dataDir: archiveDir,
      chain: { receiptArchive: true, historyBlocks: 5 },
      p2p: bootstrap,
    };
    let archive = await startTestNode(archiveConfig);
    const v = new SvcClient(validator.url);
    const alice = devnetKey('account', 6);
    const tx = await v.transfer(alice, devnetKey('account', 7).address, 'OMC', 3n * UNIT);
    const receipt = await v.waitForTransaction(tx.hash, { pollMs: 10 });
    const before = await v.getBalance(alice.address, receipt.blockNumber - 1);
    await waitFor(
      () => archive.node.service<Chain>('chain').head.height,
      (h) => h >= receipt.blockNumber + 8,
      15_000,
      'the window to pass the transfer',
    );

    // The windowed validator has let the receipt and the state at that height go.
    expect(await failure(v.getTransactionReceipt(tx.hash))).toMatchObject({
      message: 'pruned',
      code: -32031,
      data: { oldest: expect.any(Number) },
    });
    expect(await failure(v.getBalance(alice.address, receipt.blockNumber - 1))).toMatchObject({ message: 'pruned' });
    // The archive answers both.
    let a = new SvcClient(archive.url);
    expect(await a.getTransactionReceipt(tx.hash)).toMatchObject({
      status: 'success',
      blockNumber: receipt.blockNumber,
    });
    expect((await a.getBalance(alice.address, receipt.blockNumber - 1)).omc).toBe(before.omc);
    expect((await a.getBalance(alice.address, receipt.blockNumber)).omc).toBe(before.omc - 3n * UNIT);
    expect(await a.chainInfo()).toMatchObject({ archive: true, oldestStateBlock: 0 });

    // Started again without the archive capability: refused, saying how to get there.
    await archive.stop();
    const { receiptArchive: _off, ...windowed } = archiveConfig.chain;
    const refused = await startTestNode({ ...archiveConfig, chain: windowed }).then(
      (node) => {
        running.push(node);
        return undefined;
      },
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toMatch(/this data dir is an archive .*svc-node prune/);

    const pruned = await run(SVC_NODE, ['prune', '--data-dir', archiveDir, '--history-blocks', '5']);
    expect(pruned.stderr).toBe('');
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toMatch(
      /^pruned .*deleted \d+ receipts and \d+ historical state values; the archive flag is cleared$/m,
    );

    archive = await startTestNode({ ...archiveConfig, chain: windowed });
    running.push(archive);
    a = new SvcClient(archive.url);
    expect(await failure(a.getTransactionReceipt(tx.hash))).toMatchObject({ message: 'pruned' });
    expect(await failure(a.getBalance(alice.address, receipt.blockNumber - 1))).toMatchObject({ message: 'pruned' });
    expect((await a.getBalance(alice.address)).omc).toBe((await v.getBalance(alice.address)).omc);
    expect(await a.chainInfo()).toMatchObject({ archive: false });
    // Its chain is intact: it keeps following the validator.
    const height = archive.node.service<Chain>('chain').head.height;
    await waitFor(
      () => archive.node.service<Chain>('chain').head.height,
      (h) => h >= height + 3,
      10_000,
    );
  });
});
