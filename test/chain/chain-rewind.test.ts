import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { contracts } from '../helpers/contracts.js';
import { TEST_KEY_0 } from '../helpers/foundry.js';
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';
import { devnetKey, generateKeyPair, rawTransaction, signTransaction, transferPayload } from '../../sdk/index.js';
import type { Chain } from '../../chain/chain.js';

const probe = contracts().Probe as unknown as { abi: Abi; bytecode: Hex };

describe('the chain going back to an earlier block (dev mode revert)', () => {
  let dev: TestNode;
  let chain: Chain;
  beforeAll(async () => {
    // No idle blocks: every block here is one the test asked for.
    dev = await startTestNode({ dev: true, validator: { blockTime: 3_600_000 } });
    chain = dev.node.service<Chain>('chain');
  });
  afterAll(async () => {
    await dev?.stop();
  });

  it("restores the block's state root and history, and drops the undone blocks' transactions, receipts, account index entries, eth_ logs and pending transactions", async () => {
    const wallet = createWalletClient({ account: privateKeyToAccount(TEST_KEY_0), transport: http(dev.url) }).extend(
      publicActions,
    );
    const chainRef = {
      id: 0x737663,
      name: 'dev',
      nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
      rpcUrls: { default: { http: [dev.url] } },
    };
    const deployed = await wallet.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi: probe.abi, bytecode: probe.bytecode, chain: chainRef }),
    });
    const contract = deployed.contractAddress!;
    await wallet.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: contract,
        abi: probe.abi,
        functionName: 'count',
        args: [2n],
        chain: chainRef,
      }),
    });

    const snapshot = (await rpc<string>(dev.url, 'evm_snapshot')).body.result!;
    const kept = chain.head;
    const filter = (await rpc<string>(dev.url, 'eth_newBlockFilter')).body.result!;
    const logFilter = (await rpc<string>(dev.url, 'eth_newFilter', [{ address: contract }])).body.result!;

    // After the snapshot: a key created (a new account), changed (the contract's counter, a dev
    // account's balance), deleted (a storage slot set to zero), logs, and one transaction left pending.
    const alice = devnetKey('account', 0);
    const stranger = generateKeyPair();
    const transfer = signTransaction(
      {
        chainId: kept.chainId,
        kind: 'transfer',
        nonce: chain.nextNonce(alice.address),
        payload: transferPayload(stranger.address, 'OMC', 5n),
      },
      alice,
    );
    expect((await rpc(dev.url, 'svc_sendRawTransaction', [rawTransaction(transfer)])).body.error).toBeUndefined();
    const counted = await wallet.writeContract({
      address: contract,
      abi: probe.abi,
      functionName: 'count',
      args: [3n],
      chain: chainRef,
    });
    await wallet.waitForTransactionReceipt({ hash: counted });
    await rpc(dev.url, 'anvil_setStorageAt', [contract, '0x0', '0x0']);
    await rpc(dev.url, 'evm_setAutomine', [false]);
    const waiting = await wallet.sendTransaction({
      to: stranger.address.replace('svc1', '0x') as Hex,
      value: 1n,
      chain: chainRef,
    });
    expect(chain.mempool.size).toBe(1);
    expect((await chain.accountTransactions(stranger.address, 10)).entries).toHaveLength(1);
    const undone = chain.head.height;

    expect((await rpc(dev.url, 'evm_revert', [snapshot])).body.result).toBe(true);
    await rpc(dev.url, 'evm_setAutomine', [true]);

    expect(chain.head.hash).toBe(kept.hash);
    expect(chain.state.root()).toBe(kept.stateRoot);
    expect(chain.mempool.size).toBe(0);
    expect(await chain.getBlock(undone)).toBeUndefined();
    expect(await chain.getTransaction(transfer.hash)).toBeUndefined();
    expect(await chain.getTransaction(waiting)).toBeUndefined();
    expect((await chain.accountTransactions(stranger.address, 10)).entries).toHaveLength(0);
    expect((await rpc(dev.url, 'eth_getTransactionReceipt', [counted])).body.result).toBeNull();
    expect((await rpc(dev.url, 'svc_getBalance', [stranger.address])).body.result).toMatchObject({ omc: '0' });
    // The counter as it was (2), now and in the kept block's history.
    const counter = (await rpc<string>(dev.url, 'eth_getStorageAt', [contract, '0x0', 'latest'])).body.result!;
    expect(BigInt(counter)).toBe(2n);
    expect(
      (await rpc<string>(dev.url, 'eth_getStorageAt', [contract, '0x0', `0x${kept.height.toString(16)}`])).body.result,
    ).toBe(counter);
    expect(
      (
        await rpc<unknown[]>(dev.url, 'eth_getLogs', [
          { address: contract, fromBlock: `0x${(kept.height + 1).toString(16)}`, toBlock: 'latest' },
        ])
      ).body.result,
    ).toEqual([]);
    expect((await rpc<unknown[]>(dev.url, 'eth_getFilterChanges', [filter])).body.result).toEqual([]);
    expect((await rpc<unknown[]>(dev.url, 'eth_getFilterChanges', [logFilter])).body.result).toEqual([]);

    // The chain goes on from there: the same transactions are new again, at the heights after the kept block.
    expect((await rpc(dev.url, 'svc_sendRawTransaction', [rawTransaction(transfer)])).body.error).toBeUndefined();
    await waitFor(
      () => chain.getTransaction(transfer.hash),
      (found) => found?.height === kept.height + 1,
      10_000,
      'the transfer to be mined again',
    );
    expect((await rpc<string[]>(dev.url, 'eth_getFilterChanges', [filter])).body.result).toEqual([chain.head.hash]);
    expect((await chain.accountTransactions(stranger.address, 10)).entries).toHaveLength(1);
  });

  it('refuses to go back past the head or below the history window, and changes nothing', async () => {
    const head = chain.head;
    await expect(chain.rewind(head.height + 1)).rejects.toMatchObject({
      message: 'invalid_params',
      data: { reason: `cannot go back to block ${head.height + 1}: the head is ${head.height}` },
    });
    await expect(chain.rewind(-1)).rejects.toMatchObject({ message: 'invalid_params' });
    expect(chain.head.hash).toBe(head.hash);
    expect((await rpc(dev.url, 'evm_revert', ['0x7f'])).body.result).toBe(false);
    expect(chain.head.hash).toBe(head.hash);

    // A node that keeps 2 blocks of history cannot restore the state of a snapshot 5 blocks back.
    const short = await startTestNode({ dev: true, validator: { blockTime: 3_600_000 }, chain: { historyBlocks: 2 } });
    try {
      const snapshot = (await rpc<string>(short.url, 'evm_snapshot')).body.result!;
      await rpc(short.url, 'anvil_mine', [5]);
      const before = short.node.service<Chain>('chain').head.hash;
      const refused = await rpc(short.url, 'evm_revert', [snapshot]);
      expect(refused.body.error).toMatchObject({
        message: expect.stringMatching(/^cannot go back to block/),
        data: {
          error: 'pruned',
          reason: expect.stringMatching(
            /^cannot go back to block \d+: its state is older than this node's history window \(oldest: \d+\)$/,
          ),
        },
      });
      expect(short.node.service<Chain>('chain').head.hash).toBe(before);
      // Refused, the snapshot is still there (and still too old).
      expect((await rpc(short.url, 'evm_revert', [snapshot])).body.error?.data).toMatchObject({ error: 'pruned' });
    } finally {
      await short.stop();
    }
  });
});
