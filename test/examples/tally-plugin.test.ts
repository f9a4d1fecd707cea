import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { devnetKey, signTransaction, SvcClient } from '../../sdk/index.js';
import { genesisHash, withPluginGenesis } from '../../chain/genesis.js';
import type { AnyPlugin } from '../../kernel/plugin.js';
import { devnetGenesisSpec } from '../../node/devnet-genesis-spec.js';
import { DEVNET_GENESIS_PLUGINS, devnetGenesisHash } from '../../node/genesis.js';
import { rpc, startTestNode, tempDir, type TestNode } from '../helpers/test-node.js';

// The documented third-party plugin with chain rules, loaded by path as an operator would: it
// imports nothing but the package's public `svc-node/plugin` export.
const TALLY = resolve('examples/tally-plugin/index.js');

let running: TestNode | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('examples/tally-plugin (a transaction kind and a genesis entry)', () => {
  it('puts its limit in block 0, executes its transaction kind in blocks, and refuses past the limit', async () => {
    const dataDir = tempDir();
    running = await startTestNode({ dataDir, plugins: [TALLY], validator: { blockTime: 50 } });
    const client = new SvcClient(running.url);
    // Its genesis entry is part of block 0: this network's genesis is the devnet's with the entry, not the plain devnet's.
    const tally = ((await import(TALLY)) as { default: AnyPlugin }).default;
    const served = (await client.chainInfo()).genesisHash;
    expect(served).toBe(genesisHash(withPluginGenesis(devnetGenesisSpec(), [...DEVNET_GENESIS_PLUGINS, tally])));
    expect(served).not.toBe(devnetGenesisHash());
    const alice = devnetKey('account', 1);
    const add = (nonce: number, by: number) =>
      signTransaction({ chainId: 'svc-devnet-1', kind: 'tally.add', nonce, payload: { by } }, alice);
    const first = await client.sendTransaction(add(await client.getNonce(alice.address), 7));
    expect(await client.waitForTransaction(first, { pollMs: 20 })).toMatchObject({
      status: 'success',
      kind: 'tally.add',
    });
    expect((await rpc<number>(running.url, 'tally_get', [alice.address])).body.result).toBe(7);
    const tooBig = await client.sendTransaction(add(await client.getNonce(alice.address), 10));
    expect(await client.waitForTransaction(tooBig, { pollMs: 20 })).toMatchObject({
      status: 'failed',
      error: { name: 'invalid_params' },
    });
    await expect(client.sendTransaction(add(await client.getNonce(alice.address), 11))).rejects.toMatchObject({
      message: 'invalid_transaction',
    });
    // Its state is chain state: kept across a restart.
    await running.stop();
    running = await startTestNode({ dataDir, plugins: [TALLY], validator: { blockTime: 50 } });
    expect((await rpc<number>(running.url, 'tally_get', [alice.address])).body.result).toBe(7);
  });
});
