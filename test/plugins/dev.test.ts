import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BaseError,
  createTestClient,
  defineChain,
  getContractAddress,
  http,
  publicActions,
  recoverTransactionAddress,
  serializeTransaction,
  walletActions,
  type Abi,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { contracts } from '../helpers/contracts.js';
import { startNodeProcess, type RunningNode } from '../helpers/cli.js';
import { cast, startAnvil, TEST_ADDRESS_0, TEST_ADDRESS_1, TEST_KEY_0 } from '../helpers/foundry.js';
import { rpc, startTestNode, tempDir, waitFor } from '../helpers/test-node.js';
import { devnetKey, signTransaction, SvcClient } from '../../sdk/index.js';

const artifact = (name: string): { abi: Abi; bytecode: Hex } =>
  contracts()[name] as unknown as { abi: Abi; bytecode: Hex };
const account = privateKeyToAccount(TEST_KEY_0);

/** A contract test's dev loop with viem's test client in `anvil` mode: the same script for Anvil and for svc-node. */
async function devLoop(url: string, chainId: number): Promise<Record<string, unknown>> {
  const chain = defineChain({
    id: chainId,
    name: 'dev',
    nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const client = createTestClient({ mode: 'anvil', chain, transport: http(url), account, pollingInterval: 20 })
    .extend(publicActions)
    .extend(walletActions);
  const seen: Record<string, unknown> = {};

  // Automine: a transaction's receipt comes at once, in a block of its own.
  const before = await client.getBlockNumber({ cacheTime: 0 });
  const transfer = await client.sendTransaction({ to: TEST_ADDRESS_1, value: 1n });
  const mined = await client.waitForTransactionReceipt({ hash: transfer });
  // Dev mode also makes an empty block each idle second, so one may come between the look and the send.
  const block = await client.getBlock({ blockNumber: mined.blockNumber });
  seen.automined =
    mined.status === 'success' &&
    mined.blockNumber > before &&
    block.transactions.length === 1 &&
    block.transactions[0] === transfer;

  // A fixture's snapshot: deploy and transfer, then revert — the contract is gone, balances, nonce and head back.
  const { abi: lockAbi, bytecode: lockCode } = artifact('TimeLock');
  const snapshotHead = await client.getBlockNumber({ cacheTime: 0 });
  const payeeBefore = await client.getBalance({ address: TEST_ADDRESS_1 });
  const nonceBefore = await client.getTransactionCount({ address: account.address });
  const snapshot = await client.snapshot();
  const fixture = (
    await client.waitForTransactionReceipt({
      hash: await client.deployContract({ abi: lockAbi, bytecode: lockCode, args: [60n], value: 5n }),
    })
  ).contractAddress!;
  const paid = await client.sendTransaction({ to: TEST_ADDRESS_1, value: 10n ** 18n });
  await client.waitForTransactionReceipt({ hash: paid });
  await client.snapshot();
  await client.mine({ blocks: 3 });
  seen.reverted = await client.revert({ id: snapshot }).then(() => 'reverted');
  seen.afterRevert = {
    code: await client.getCode({ address: fixture }),
    payee: (await client.getBalance({ address: TEST_ADDRESS_1 })) === payeeBefore,
    nonce: (await client.getTransactionCount({ address: account.address })) === nonceBefore,
    head: (await client.getBlockNumber({ cacheTime: 0 })) === snapshotHead,
    receipt: await client.getTransactionReceipt({ hash: paid }).then(
      () => 'kept',
      () => 'gone',
    ),
  };
  // The snapshot is used up. (A later one is too on svc-node, as on Hardhat; Anvil answers an error for it.)
  seen.usedUp = await client.request({ method: 'evm_revert', params: [snapshot] } as never);
  // The same deploy again lands at the same address: the account's nonce went back with the blocks.
  seen.sameAddress =
    (
      await client.waitForTransactionReceipt({
        hash: await client.deployContract({ abi: lockAbi, bytecode: lockCode, args: [60n], value: 5n }),
      })
    ).contractAddress === fixture;

  // mine(10) moves the head by 10.
  const start = await client.getBlockNumber({ cacheTime: 0 });
  await client.mine({ blocks: 10 });
  seen.minedTen = (await client.getBlockNumber({ cacheTime: 0 })) - start;

  // A time lock: refused before its time; after increaseTime(3600) and a block, withdrawn.
  const { abi, bytecode } = artifact('TimeLock');
  const deployed = await client.waitForTransactionReceipt({
    hash: await client.deployContract({ abi, bytecode, args: [3600n], value: 10n ** 15n }),
  });
  const lock = deployed.contractAddress!;
  const early = await client.simulateContract({ address: lock, abi, functionName: 'withdraw' }).then(
    () => 'ran',
    (error: unknown) =>
      error instanceof BaseError
        ? (
            error.walk((e) => (e as { data?: { errorName?: string } }).data?.errorName !== undefined) as {
              data?: { errorName?: string };
            } | null
          )?.data?.errorName
        : String(error),
  );
  seen.early = early;
  const lockedAt = (await client.getBlock()).timestamp;
  await client.increaseTime({ seconds: 3600 });
  await client.mine({ blocks: 1 });
  seen.clockMoved = (await client.getBlock()).timestamp - lockedAt >= 3600n;
  const withdraw = await client.waitForTransactionReceipt({
    hash: await client.writeContract({ address: lock, abi, functionName: 'withdraw' }),
  });
  seen.withdrawn = withdraw.status;
  seen.lockEmpty = await client.getBalance({ address: lock });

  // Automine off: a transaction waits until a block is mined on demand.
  await client.setAutomine(false);
  seen.automineOff = (await client.request({ method: 'anvil_getAutomine' } as never)) === false;
  const waiting = await client.sendTransaction({ to: TEST_ADDRESS_1, value: 2n });
  const pending = await client.getTransactionReceipt({ hash: waiting }).then(
    () => 'mined',
    () => 'pending',
  );
  seen.waitedForMine = pending;
  await client.mine({ blocks: 1 });
  seen.minedOnDemand = (await client.waitForTransactionReceipt({ hash: waiting })).status;
  await client.setAutomine(true);

  // State edits read back.
  const someone = '0x000000000000000000000000000000000000dEaD';
  await client.setBalance({ address: someone, value: 12_345n });
  seen.balance = await client.getBalance({ address: someone });
  await client.setNonce({ address: someone, nonce: 7 });
  seen.nonce = await client.getTransactionCount({ address: someone });
  // Runtime code that returns the word 0xff.
  const code = '0x60ff60005260206000f3';
  await client.setCode({ address: someone, bytecode: code });
  seen.code = await client.getCode({ address: someone });
  seen.called = (await client.call({ to: someone })).data;
  const slot = `0x${'00'.repeat(31)}01` as Hex;
  const value = `0x${'ab'.repeat(32)}` as Hex;
  await client.setStorageAt({ address: someone, index: slot, value });
  seen.storage = await client.getStorageAt({ address: someone, slot });

  // Impersonation: a funded account whose key no one here holds (a whale, a DAO) sends a transfer, unsigned.
  const whale = '0x00000000000000000000000000000000000beef0';
  const payee = '0x00000000000000000000000000000000000cafe0';
  await client.setBalance({ address: whale, value: 10n ** 18n });
  await client.impersonateAccount({ address: whale });
  const asWhale = await client.sendTransaction({ account: whale, to: payee, value: 1_000n, chain });
  const impersonated = await client.waitForTransactionReceipt({ hash: asWhale });
  seen.impersonated = [
    impersonated.status,
    impersonated.from.toLowerCase() === whale.toLowerCase(),
    await client.getBalance({ address: payee }),
  ];
  seen.impersonatedTx = (await client.getTransaction({ hash: asWhale })).from.toLowerCase() === whale.toLowerCase();
  // A test account that is not this client's signer, the same way (Anvil would sign for it anyway).
  await client.impersonateAccount({ address: TEST_ADDRESS_1 });
  seen.testAccount = (
    await client.waitForTransactionReceipt({
      hash: await client.sendTransaction({ account: TEST_ADDRESS_1, to: payee, value: 1n, chain }),
    })
  ).status;
  await client.stopImpersonatingAccount({ address: TEST_ADDRESS_1 });
  await client.stopImpersonatingAccount({ address: whale });
  seen.stopped = await client.sendTransaction({ account: whale, to: payee, value: 1n, chain }).then(
    () => 'sent',
    () => 'refused',
  );

  // The next block's time, set.
  const next = (await client.getBlock()).timestamp + 1000n;
  await client.setNextBlockTimestamp({ timestamp: next });
  await client.mine({ blocks: 1 });
  seen.nextTimestamp = (await client.getBlock()).timestamp === next;
  return seen;
}

const EXPECTED = {
  reverted: 'reverted',
  afterRevert: { code: undefined, payee: true, nonce: true, head: true, receipt: 'gone' },
  usedUp: false,
  sameAddress: true,
  automined: true,
  minedTen: 10n,
  early: 'TooEarly',
  clockMoved: true,
  withdrawn: 'success',
  lockEmpty: 0n,
  automineOff: true,
  waitedForMine: 'pending',
  minedOnDemand: 'success',
  nextTimestamp: true,
  balance: 12_345n,
  nonce: 7,
  code: '0x60ff60005260206000f3',
  called: `0x${'00'.repeat(31)}ff`,
  storage: `0x${'ab'.repeat(32)}`,
  impersonated: ['success', true, 1_000n],
  impersonatedTx: true,
  testAccount: 'success',
  stopped: 'refused',
};

describe('dev mode', () => {
  let node: RunningNode;
  beforeAll(async () => {
    node = await startNodeProcess([
      '--dev',
      '--data-dir',
      tempDir('svc-dev-'),
      '--bind',
      '127.0.0.1:0',
      '--p2p-port',
      '0',
    ]);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('runs the same viem test-client script as Anvil: automine, mine, the clock and a time lock, mining on demand, state edits, impersonation', async () => {
    const anvil = await startAnvil();
    try {
      expect(await devLoop(anvil.url, 31337)).toEqual(EXPECTED);
    } finally {
      await anvil.stop();
    }
    expect(await devLoop(node.url, 0x737663)).toEqual(EXPECTED);
    // Anvil-compatible first (what Hardhat's network helpers read), then what it is.
    expect((await rpc<string>(node.url, 'web3_clientVersion')).body.result).toMatch(/^anvil\/svc-node-v/);
  }, 120_000);

  it('a follower synced from the dev node replays its edits, clock moves and mined blocks to the same state root; a revert waits until it has gone', async () => {
    const listening = /p2p listening on (\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/\w+)/;
    const p2p = listening.exec(node.output())![1]!;
    const snapshot = (await rpc<string>(node.url, 'evm_snapshot')).body.result!;
    const kept = Number((await rpc<string>(node.url, 'eth_blockNumber')).body.result);
    await rpc(node.url, 'anvil_setBalance', ['0x000000000000000000000000000000000000dEaD', '0x3040']);
    const head = Number((await rpc<string>(node.url, 'eth_blockNumber')).body.result);
    const follower = await startTestNode({ role: 'full', p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [p2p] } });
    try {
      await waitFor(
        async () => Number((await rpc<string>(follower.url, 'eth_blockNumber')).body.result),
        (h) => h >= head,
        30_000,
        'the follower to reach the dev head',
      );
      const [mine, theirs] = await Promise.all([
        rpc<{ stateRoot: string; hash: string }>(follower.url, 'svc_getBlockByNumber', [head]),
        rpc<{ stateRoot: string; hash: string }>(node.url, 'svc_getBlockByNumber', [head]),
      ]);
      expect(mine.body.result?.stateRoot).toBe(theirs.body.result?.stateRoot);
      expect(mine.body.result?.hash).toBe(theirs.body.result?.hash);
      expect(
        (
          await rpc<string>(follower.url, 'eth_getBalance', [
            '0x000000000000000000000000000000000000dEaD',
            `0x${head.toString(16)}`,
          ])
        ).body.result,
      ).toBe('0x3040');
      const refused = await rpc(node.url, 'evm_revert', [snapshot]);
      expect(refused.body.error).toMatchObject({ code: -32028, data: { error: 'peers_connected' } });
      expect(Number((await rpc<string>(node.url, 'eth_blockNumber')).body.result)).toBeGreaterThanOrEqual(head);
    } finally {
      await follower.stop();
    }
    await waitFor(
      async () => (await rpc<unknown[]>(node.url, 'svc_peers')).body.result!,
      (peers) => peers.length === 0,
      10_000,
      'the follower to disconnect',
    );
    const undone = (await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', [`0x${head.toString(16)}`, false]))
      .body.result!;
    expect((await rpc(node.url, 'evm_revert', [snapshot])).body.result).toBe(true);
    // The edit went with its block (the idle interval may have mined an empty one at its height since).
    expect(
      (await rpc<string>(node.url, 'eth_getBalance', ['0x000000000000000000000000000000000000dEaD', 'latest'])).body
        .result,
    ).toBe('0x3039');
    expect(
      (await rpc<{ hash: string } | null>(node.url, 'eth_getBlockByNumber', [`0x${head.toString(16)}`, false])).body
        .result?.hash,
    ).not.toBe(undone.hash);
    expect(
      (await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', [`0x${kept.toString(16)}`, false])).body.result,
    ).toBeTruthy();
  }, 60_000);

  it('a revert drops later snapshots; a restart opens the chain as the revert left it and mines on from there', async () => {
    const dir = tempDir('svc-dev-revert-');
    // No idle blocks: the head moves only when the test asks.
    const args = ['--dev', '--data-dir', dir, '--bind', '127.0.0.1:0', '--p2p-port', '0', '--block-time', '3600000'];
    let dev = await startNodeProcess(args);
    try {
      const payee = '0x00000000000000000000000000000000000fee01';
      // A new chain's first block comes at once (its genesis time is long past): the snapshot follows it.
      await waitFor(
        async () => Number((await rpc<string>(dev.url, 'eth_blockNumber')).body.result),
        (height) => height >= 1,
        10_000,
        'the first block',
      );
      const first = (await rpc<string>(dev.url, 'evm_snapshot')).body.result!;
      const kept = (
        await rpc<{ number: string; hash: string; stateRoot: string }>(dev.url, 'eth_getBlockByNumber', [
          'latest',
          false,
        ])
      ).body.result!;
      await rpc(dev.url, 'anvil_setBalance', [payee, '0x64']);
      const second = (await rpc<string>(dev.url, 'evm_snapshot')).body.result!;
      await rpc(dev.url, 'anvil_mine', [5]);
      expect((await rpc(dev.url, 'evm_revert', [first])).body.result).toBe(true);
      expect((await rpc(dev.url, 'evm_revert', [second])).body.result).toBe(false);
      expect((await rpc(dev.url, 'evm_revert', ['0x99'])).body.result).toBe(false);
      expect((await rpc(dev.url, 'evm_revert', ['later'])).body.error?.code).toBe(-32602);
      await dev.stop();
      dev = await startNodeProcess(args);
      const reopened = (
        await rpc<{ number: string; hash: string; stateRoot: string }>(dev.url, 'eth_getBlockByNumber', [
          'latest',
          false,
        ])
      ).body.result!;
      expect(reopened).toMatchObject({ number: kept.number, hash: kept.hash });
      const atKept = (
        await rpc<{ hash: string; stateRoot: string }>(dev.url, 'eth_getBlockByNumber', [kept.number, false])
      ).body.result!;
      expect(atKept).toMatchObject({ hash: kept.hash, stateRoot: kept.stateRoot });
      expect((await rpc<string>(dev.url, 'eth_getBalance', [payee, 'latest'])).body.result).toBe('0x0');
      await rpc(dev.url, 'anvil_setBalance', [payee, '0x65']);
      expect((await rpc<string>(dev.url, 'eth_getBalance', [payee, 'latest'])).body.result).toBe('0x65');
      expect(Number((await rpc<string>(dev.url, 'eth_blockNumber')).body.result)).toBeGreaterThan(
        Number(reopened.number),
      );
    } finally {
      await dev.stop();
    }
  }, 60_000);

  it('a contract an impersonated account creates is its own: its address from that account and nonce, the account its creator', async () => {
    const dao = '0x0000000000000000000000000000000000000da0';
    await rpc(node.url, 'anvil_setBalance', [dao, '0xde0b6b3a7640000']);
    await rpc(node.url, 'anvil_impersonateAccount', [dao]);
    // Init code that deploys one byte of code (PUSH1 1, PUSH1 0, RETURN): a contract with a record.
    const sent = await rpc<Hex>(node.url, 'eth_sendTransaction', [{ from: dao, data: '0x60016000f3' }]);
    expect(sent.body.error).toBeUndefined();
    const receipt = (
      await rpc<{ contractAddress: string; from: string; status: string }>(node.url, 'eth_getTransactionReceipt', [
        sent.body.result,
      ])
    ).body.result!;
    expect(receipt).toMatchObject({
      status: '0x1',
      from: dao,
      contractAddress: getContractAddress({ from: dao, nonce: 0n }).toLowerCase(),
    });
    const record = (
      await rpc<{ creator: string }>(node.url, 'svc_getContract', [`svc1${receipt.contractAddress.slice(2)}`])
    ).body.result;
    expect(record?.creator).toBe(`svc1${dao.slice(2)}`);
  });

  it("sets an account's OGT and OMC through the svc side, in a block", async () => {
    const address = 'svc1000000000000000000000000000000000000f00d';
    expect(
      (await rpc(node.url, 'svc_devSetBalance', [address, { omc: '5', ogt: '7000000000000000000' }])).body.error,
    ).toBeUndefined();
    expect(await new SvcClient(node.url).getBalance(address)).toMatchObject({ omc: 5n, ogt: 7n * 10n ** 18n });
    expect(
      (await rpc(node.url, 'svc_devSetBalance', ['0x000000000000000000000000000000000000f00d', { ogt: '1' }])).body
        .error,
    ).toMatchObject({ message: 'invalid_address' });
    expect((await rpc(node.url, 'svc_devSetBalance', [address, {}])).body.error?.code).toBe(-32602);
  });

  it('answers bad parameters with a clear error and changes nothing', async () => {
    const head = (await rpc<string>(node.url, 'eth_blockNumber')).body.result;
    const block = (await rpc<{ timestamp: string }>(node.url, 'eth_getBlockByNumber', ['latest', false])).body.result!;
    const back = await rpc(node.url, 'evm_setNextBlockTimestamp', [Number(block.timestamp) - 1]);
    // Ethereum's shape: the text in message (viem and ethers show it), the name in data.error.
    expect(back.body.error?.message).toMatch(/after the head's/);
    expect(back.body.error?.data).toMatchObject({ error: 'invalid_params', reason: back.body.error?.message });
    const tooMany = await rpc(node.url, 'anvil_mine', [100_000]);
    expect(tooMany.body.error?.data?.reason).toMatch(/count must be 1 to 10000/);
    expect((await rpc(node.url, 'evm_setAutomine', ['yes'])).body.error?.code).toBe(-32602);
    expect((await rpc<string>(node.url, 'eth_blockNumber')).body.result).toBe(head);
  });

  it('unlocks the ten test-mnemonic accounts as Anvil does: eth_accounts lists them, and `cast send --unlocked --from` one signs a real transaction with its key', async () => {
    const accounts = (await rpc<string[]>(node.url, 'eth_accounts')).body.result!;
    expect(accounts).toHaveLength(10);
    expect(accounts.slice(0, 2)).toEqual([TEST_ADDRESS_0, TEST_ADDRESS_1]);
    const before = BigInt(await cast(['balance', TEST_ADDRESS_1, '--rpc-url', node.url]));
    const receipt = JSON.parse(
      await cast([
        'send',
        '--unlocked',
        '--from',
        TEST_ADDRESS_0,
        TEST_ADDRESS_1,
        '--value',
        '12345',
        '--rpc-url',
        node.url,
        '--json',
      ]),
    ) as { status: string; transactionHash: `0x${string}` };
    expect(receipt.status).toBe('0x1');
    expect(BigInt(await cast(['balance', TEST_ADDRESS_1, '--rpc-url', node.url]))).toBe(before + 12345n);
    // Signed by the account's own key: the transaction's signature recovers to it.
    const tx = (await rpc<Record<string, string>>(node.url, 'eth_getTransactionByHash', [receipt.transactionHash])).body
      .result!;
    expect(tx.type).toBe('0x2');
    const signed = serializeTransaction(
      {
        type: 'eip1559',
        chainId: Number(tx.chainId),
        nonce: Number(tx.nonce),
        to: tx.to as Hex,
        value: BigInt(tx.value!),
        gas: BigInt(tx.gas!),
        maxFeePerGas: BigInt(tx.maxFeePerGas!),
        maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas!),
        data: tx.input as Hex,
      },
      { r: tx.r as Hex, s: tx.s as Hex, yParity: Number(tx.yParity) },
    );
    expect((await recoverTransactionAddress({ serializedTransaction: signed })).toLowerCase()).toBe(
      TEST_ADDRESS_0.toLowerCase(),
    );
  });
});

describe('dev-mode methods elsewhere', () => {
  it('a node not in dev mode lists them and answers dev_mode_off, and --dev is refused where it cannot hold', async () => {
    const plain = await startTestNode({});
    try {
      for (const [method, params] of [
        ['evm_mine', []],
        ['anvil_mine', [1]],
        ['evm_increaseTime', [60]],
        ['evm_setAutomine', [false]],
      ] as const) {
        const { body } = await rpc(plain.url, method, [...params]);
        expect(body.error, method).toMatchObject({ code: -32027, data: { error: 'dev_mode_off' } });
      }
      // It signs for no one.
      expect((await rpc(plain.url, 'eth_accounts')).body.result).toEqual([]);
    } finally {
      await plain.stop();
    }
    // A state edit signed with the devnet validator's (public) key is refused by a node not in dev mode.
    const again = await startTestNode({});
    try {
      const edit = signTransaction(
        {
          chainId: 'svc-devnet-1',
          kind: 'evm.devSet',
          nonce: 0,
          payload: { address: '0x000000000000000000000000000000000000dead', balance: '1' },
        },
        devnetKey('validator', 0),
      );
      await expect(new SvcClient(again.url).sendTransaction(edit)).rejects.toMatchObject({ message: 'dev_mode_off' });
    } finally {
      await again.stop();
    }
    await expect(startTestNode({ dev: true, role: 'full' })).rejects.toThrow(
      /--dev: dev mode runs a validator; --role full contradicts it/,
    );
    await expect(startTestNode({ dev: true, network: 'testnet', genesis: '/nonexistent' })).rejects.toThrow(
      /--dev: dev mode runs only on the built-in devnet/,
    );
  });
});
