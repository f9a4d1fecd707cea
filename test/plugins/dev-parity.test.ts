import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { contracts } from '../helpers/contracts.js';
import { startAnvil, TEST_ADDRESS_0, TEST_ADDRESS_1 } from '../helpers/foundry.js';
import { rpc, startTestNode, tempDir, type TestNode } from '../helpers/test-node.js';
import { devnetKey } from '../../sdk/index.js';
import { hexOfAddress } from '../../sdk/address.js';

/** Init code of a contract whose runtime code returns 1 (10 bytes), with a slot written by its constructor. */
const COUNTER_INIT = '0x602a600355600a600f600039600a6000f3600160005260206000f3';

// What a tool asks of a dev chain beyond mining and state edits, asked of `--dev` and of Anvil alike.
let dev: TestNode;
let anvil: { url: string; stop: () => Promise<void> };
beforeAll(async () => {
  [dev, anvil] = await Promise.all([startTestNode({ dev: true }), startAnvil()]);
});
afterAll(async () => {
  await Promise.all([dev?.stop(), anvil?.stop()]);
});

/** One call to both, answers side by side: [svc-node's, Anvil's]. */
async function both(method: string, params: unknown[]): Promise<[unknown, unknown]> {
  const [ours, theirs] = await Promise.all([rpc(dev.url, method, params), rpc(anvil.url, method, params)]);
  const answer = (body: { result?: unknown; error?: unknown }) =>
    'error' in body && body.error ? body.error : body.result;
  return [answer(ours.body), answer(theirs.body)];
}

const typedData = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'address' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 1,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  message: { from: TEST_ADDRESS_1, contents: 'Hello, Bob!' },
};

describe('dev mode signs as Anvil does', () => {
  it('eth_sign, personal_sign and eth_signTypedData_v4 with an unlocked account give Anvil’s signatures', async () => {
    const data = '0x48656c6c6f';
    const [signed, anvilSigned] = await both('eth_sign', [TEST_ADDRESS_0, data]);
    expect(signed).toMatch(/^0x[0-9a-f]{130}$/);
    expect(signed).toBe(anvilSigned);
    const [personal, anvilPersonal] = await both('personal_sign', [data, TEST_ADDRESS_0]);
    expect(personal).toBe(anvilPersonal);
    expect(personal).toBe(signed);
    for (const form of [typedData, JSON.stringify(typedData)]) {
      const [typed, anvilTyped] = await both('eth_signTypedData_v4', [TEST_ADDRESS_0, form]);
      expect(typed).toMatch(/^0x[0-9a-f]{130}$/);
      expect(typed).toBe(anvilTyped);
    }
  });

  it('refuses an account it holds no key for, and malformed typed data, with the reason', async () => {
    const stranger = '0x000000000000000000000000000000000000dEaD';
    const refused = (await rpc(dev.url, 'eth_sign', [stranger, '0x00'])).body.error;
    expect(refused).toMatchObject({ code: -32000, message: expect.stringContaining('unknown account') });
    const bad = (await rpc(dev.url, 'eth_signTypedData_v4', [TEST_ADDRESS_0, '{not json'])).body.error;
    expect(bad).toMatchObject({ code: -32602, message: expect.stringContaining('not JSON') });
    const wrongType = (
      await rpc(dev.url, 'eth_signTypedData_v4', [TEST_ADDRESS_0, { ...typedData, primaryType: 'Nope' }])
    ).body.error;
    expect(wrongType).toMatchObject({ code: -32602 });
  });

  it('eth_getBlockReceipts answers a block’s receipts by number, tag and hash as Anvil shapes them; null past the head', async () => {
    const sent = await Promise.all(
      [dev.url, anvil.url].map(
        async (url) =>
          (
            await rpc<string>(url, 'eth_sendTransaction', [
              { from: TEST_ADDRESS_0, to: TEST_ADDRESS_1, value: '0x1', gas: '0x5208' },
            ])
          ).body.result!,
      ),
    );
    const blocks = await Promise.all(
      [dev.url, anvil.url].map(
        async (url, i) =>
          (await rpc<{ blockNumber: string; blockHash: string }>(url, 'eth_getTransactionReceipt', [sent[i]])).body
            .result!,
      ),
    );
    for (const [i, url] of [dev.url, anvil.url].entries()) {
      const byNumber = (await rpc<Record<string, unknown>[]>(url, 'eth_getBlockReceipts', [blocks[i]!.blockNumber]))
        .body.result!;
      expect(byNumber.map((r) => r.transactionHash)).toEqual([sent[i]]);
      expect(Object.keys(byNumber[0]!).sort()).toEqual(expect.arrayContaining(['status', 'gasUsed', 'logs', 'type']));
      const byHash = (await rpc<unknown[]>(url, 'eth_getBlockReceipts', [blocks[i]!.blockHash])).body.result!;
      expect(byHash).toEqual(byNumber);
      expect((await rpc(url, 'eth_getBlockReceipts', ['0xffffff'])).body.result).toBeNull();
    }
  });
});

describe('state dumps, as Anvil makes and loads them', () => {
  /** Every account of a dump as a node answers it. */
  async function accountsOf(url: string, dump: string, except: string): Promise<Record<string, unknown>> {
    const raw = Buffer.from(dump.slice(2), 'hex');
    const { accounts } = JSON.parse(gunzipSync(raw).toString()) as {
      accounts: Record<string, { storage: Record<string, string> }>;
    };
    const seen: Record<string, unknown> = {};
    for (const [address, record] of Object.entries(accounts)) {
      if (address === except) continue;
      const ask = async (method: string, params: unknown[]) => (await rpc(url, method, params)).body.result;
      seen[address] = {
        balance: await ask('eth_getBalance', [address, 'latest']),
        nonce: await ask('eth_getTransactionCount', [address, 'latest']),
        code: await ask('eth_getCode', [address, 'latest']),
        storage: await Promise.all(
          Object.keys(record.storage).map((slot) => ask('eth_getStorageAt', [address, slot, 'latest'])),
        ),
      };
    }
    return seen;
  }

  it('anvil_dumpState on one node and anvil_loadState on a fresh one: every account, contract and slot equal; Anvil loads the dump too', async () => {
    const deployed = (
      await rpc<string>(dev.url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, data: COUNTER_INIT, gas: '0x30000' }])
    ).body.result!;
    const contract = (await rpc<{ contractAddress: string }>(dev.url, 'eth_getTransactionReceipt', [deployed])).body
      .result!.contractAddress;
    await rpc(dev.url, 'anvil_setStorageAt', [contract, '0x5', `0x${'ab'.repeat(32)}`]);
    await rpc(dev.url, 'anvil_setBalance', ['0x000000000000000000000000000000000000bEEF', '0x1234']);
    const dump = (await rpc<string>(dev.url, 'anvil_dumpState', [])).body.result!;
    expect(dump).toMatch(/^0x1f8b/);
    const fresh = await startTestNode({ dev: true });
    try {
      expect((await rpc(fresh.url, 'anvil_loadState', [dump])).body.result).toBe(true);
      // The devnet validator signs the edits that load a dump: its nonce counts them, not the dump's.
      const validator = hexOfAddress(devnetKey('validator', 0).address);
      const want = await accountsOf(dev.url, dump, validator);
      expect(Object.keys(want)).toEqual(
        expect.arrayContaining([contract, '0x000000000000000000000000000000000000beef']),
      );
      expect(await accountsOf(fresh.url, dump, validator)).toEqual(want);
      // Loading it again changes nothing; a dump of the loaded node holds the same accounts.
      expect((await rpc(fresh.url, 'anvil_loadState', [dump])).body.result).toBe(true);
      const again = (await rpc<string>(fresh.url, 'anvil_dumpState', [])).body.result!;
      expect(await accountsOf(fresh.url, again, validator)).toEqual(want);
      // Anvil reads the dump: the contract's code and slots are there.
      expect((await rpc(anvil.url, 'anvil_loadState', [dump])).body.result).toBe(true);
      const onAnvil = await rpc(anvil.url, 'eth_getStorageAt', [contract, '0x5', 'latest']);
      expect(onAnvil.body.result).toBe(`0x${'ab'.repeat(32)}`);
      expect((await rpc(anvil.url, 'eth_getCode', [contract, 'latest'])).body.result).toBe(
        (await rpc(dev.url, 'eth_getCode', [contract, 'latest'])).body.result,
      );
    } finally {
      await fresh.stop();
    }
  });

  it("loads Anvil's own dump, and refuses bytes that are no dump with the reason, changing nothing", async () => {
    await rpc(anvil.url, 'anvil_setCode', ['0x00000000000000000000000000000000000000AA', '0x600160005260206000f3']);
    await rpc(anvil.url, 'anvil_setStorageAt', [
      '0x00000000000000000000000000000000000000AA',
      '0x1',
      `0x${'01'.padStart(64, '0')}`,
    ]);
    const theirs = (await rpc<string>(anvil.url, 'anvil_dumpState', [])).body.result!;
    expect((await rpc(dev.url, 'anvil_loadState', [theirs])).body.result).toBe(true);
    expect(
      (await rpc(dev.url, 'eth_getCode', ['0x00000000000000000000000000000000000000aa', 'latest'])).body.result,
    ).toBe('0x600160005260206000f3');
    const head = (await rpc(dev.url, 'eth_blockNumber', [])).body.result;
    const refused = (await rpc(dev.url, 'anvil_loadState', ['0x1f8b0000'])).body.error;
    expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining('not a state dump') });
    const noAccounts = (await rpc(dev.url, 'anvil_loadState', [`0x${Buffer.from('{"x":1}').toString('hex')}`])).body
      .error;
    expect(noAccounts).toMatchObject({ code: -32602, message: expect.stringContaining('"accounts"') });
    expect((await rpc(dev.url, 'eth_blockNumber', [])).body.result).toBe(head);
  });

  it('--state keeps a dev chain’s accounts across restarts: dumped at stop, loaded at start', async () => {
    const file = join(tempDir(), 'state.json');
    const first = await startTestNode({ dev: true, state: file } as never);
    await rpc(first.url, 'anvil_setCode', ['0x00000000000000000000000000000000000000bb', '0x6001']);
    await first.stop();
    expect(existsSync(file)).toBe(true);
    const second = await startTestNode({ dev: true, state: file } as never);
    try {
      expect(
        (await rpc(second.url, 'eth_getCode', ['0x00000000000000000000000000000000000000bb', 'latest'])).body.result,
      ).toBe('0x6001');
    } finally {
      await second.stop();
    }
    await expect(startTestNode({ loadState: file } as never)).rejects.toThrow('start with --dev');
  });
});

describe('the mempool and the node, as Anvil shows them', () => {
  it('txpool_status, _content and _inspect count and show what waits (runnable and behind a gap) as Anvil does; anvil_dropTransaction takes one out', async () => {
    // Nothing mined meanwhile: no automine, and no idle blocks (dev mode mines what waits in them).
    await rpc(dev.url, 'evm_setIntervalMining', [0]);
    for (const url of [dev.url, anvil.url]) await rpc(url, 'evm_setAutomine', [false]);
    try {
      const shapes: unknown[] = [];
      for (const url of [dev.url, anvil.url]) {
        const nonce = Number(
          BigInt((await rpc<string>(url, 'eth_getTransactionCount', [TEST_ADDRESS_1, 'latest'])).body.result!),
        );
        const send = async (n: number) =>
          (
            await rpc<string>(url, 'eth_sendTransaction', [
              {
                from: TEST_ADDRESS_1,
                to: TEST_ADDRESS_0,
                value: '0x7',
                gas: '0x5208',
                nonce: `0x${n.toString(16)}`,
                maxFeePerGas: '0x174876e800',
                maxPriorityFeePerGas: '0x0',
              },
            ])
          ).body.result!;
        const runnable = await send(nonce);
        const gapped = await send(nonce + 2);
        const status = (await rpc(url, 'txpool_status', [])).body.result;
        const content = (
          await rpc<{ pending: Record<string, Record<string, { hash: string }>> }>(url, 'txpool_content', [])
        ).body.result!;
        const inspect = (await rpc<{ queued: Record<string, Record<string, string>> }>(url, 'txpool_inspect', [])).body
          .result!;
        const dropped = (await rpc(url, 'anvil_dropTransaction', [runnable])).body.result;
        const after = (await rpc(url, 'txpool_status', [])).body.result;
        const again = (await rpc(url, 'anvil_dropTransaction', [runnable])).body.result;
        // Anvil drops only what can run; the gapped one goes with the automine below (or a later nonce).
        await rpc(url, 'anvil_dropTransaction', [gapped]);
        shapes.push({
          status,
          pendingHash: content.pending[TEST_ADDRESS_1.toLowerCase()]?.[String(nonce)]?.hash,
          queuedLine: inspect.queued[TEST_ADDRESS_1.toLowerCase()]?.[String(nonce + 2)],
          dropped,
          after,
          again,
          runnable,
          gapped,
        });
      }
      for (const shape of shapes as Record<string, unknown>[]) {
        expect(shape).toMatchObject({
          status: { pending: '0x1', queued: '0x1' },
          pendingHash: shape.runnable,
          queuedLine: `${TEST_ADDRESS_0.toLowerCase()}: 7 wei + 21000 gas × 100000000000 wei`,
          dropped: shape.runnable,
          after: { pending: '0x0', queued: '0x1' },
          again: null,
        });
      }
    } finally {
      for (const url of [dev.url, anvil.url]) await rpc(url, 'evm_setAutomine', [true]);
      await rpc(dev.url, 'evm_setIntervalMining', [1]);
    }
  });

  it("answers web3_clientVersion as Anvil (then svc-node), anvil_nodeInfo in Anvil's shape, and Hardhat's names of Anvil's methods", async () => {
    const version = (await rpc<string>(dev.url, 'web3_clientVersion', [])).body.result!;
    expect(version).toMatch(/^anvil\/svc-node-v[\d.]+\/node-v/);
    const [ours, theirs] = (await both('anvil_nodeInfo', [])) as Record<string, unknown>[];
    expect(Object.keys(ours!).sort()).toEqual(
      expect.arrayContaining(
        Object.keys(theirs!)
          .filter((k) => k !== 'network')
          .sort(),
      ),
    );
    const [mined] = await both('hardhat_mine', ['0x2']);
    expect(mined).toBeNull();
    const [automine, anvilAutomine] = await both('hardhat_getAutomine', []);
    expect(automine).toBe(anvilAutomine);
    await rpc(dev.url, 'hardhat_setBalance', ['0x000000000000000000000000000000000000bEEF', '0x42']);
    expect(
      (await rpc(dev.url, 'eth_getBalance', ['0x000000000000000000000000000000000000bEEF', 'latest'])).body.result,
    ).toBe('0x42');
  });
});

describe("a contract's console.log", () => {
  it('prints in the dev node’s log with its transaction, as Hardhat and Anvil do', async () => {
    const { abi, bytecode } = contracts().ConsoleProbe as unknown as { abi: Abi; bytecode: Hex };
    const created = (await rpc<string>(dev.url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, data: bytecode }])).body
      .result!;
    const address = (await rpc<{ contractAddress: string }>(dev.url, 'eth_getTransactionReceipt', [created])).body
      .result!.contractAddress;
    const data = encodeFunctionData({ abi, functionName: 'bump', args: [5n] });
    const hash = (await rpc<string>(dev.url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, to: address, data }])).body
      .result!;
    const printed = dev.logs.lines.filter((line) => line.tx === hash).map((line) => line.msg);
    expect(printed).toEqual([
      'console.log: bumped by 5 to',
      `console.log: sender ${TEST_ADDRESS_0} true`,
      'console.log: 5',
    ]);
    // anvil_setLoggingEnabled false stops the printing; true (or hardhat_setLoggingEnabled) brings it back.
    const quiet = async () => {
      const sent = (await rpc<string>(dev.url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, to: address, data }]))
        .body.result!;
      return dev.logs.lines.filter((line) => line.tx === sent).length;
    };
    expect((await rpc(dev.url, 'anvil_setLoggingEnabled', [false])).body).toMatchObject({ result: null });
    expect(await quiet()).toBe(0);
    expect((await rpc(dev.url, 'hardhat_setLoggingEnabled', [true])).body).toMatchObject({ result: null });
    expect(await quiet()).toBe(3);
  });
});

describe("the node's own Anvil methods", () => {
  it("anvil_metadata (and hardhat_metadata) answers in Anvil's shape, its snapshots included; anvil_setMinGasPrice is refused as Anvil refuses it", async () => {
    const snapshot = (await rpc<string>(dev.url, 'evm_snapshot', [])).body.result!;
    const [ours, theirs] = (await both('anvil_metadata', [])) as Record<string, unknown>[];
    const shape = (answer: Record<string, unknown>) =>
      Object.fromEntries(
        [
          'clientVersion',
          'chainId',
          'instanceId',
          'latestBlockNumber',
          'latestBlockHash',
          'forkedNetwork',
          'snapshots',
        ].map((key) => [key, answer[key] === null ? null : Array.isArray(answer[key]) ? 'array' : typeof answer[key]]),
      );
    expect(shape(ours!)).toEqual(shape(theirs!));
    const head = (await rpc<{ number: string; hash: string }>(dev.url, 'eth_getBlockByNumber', ['latest', false])).body
      .result!;
    expect(ours).toMatchObject({
      clientVersion: expect.stringMatching(/^anvil\/svc-node-v/),
      chainId: 0x737663,
      instanceId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      latestBlockNumber: Number(head.number),
      latestBlockHash: head.hash,
      forkedNetwork: null,
    });
    expect((ours!.snapshots as Record<string, unknown>)[snapshot]).toEqual([Number(head.number), head.hash]);
    expect((await rpc(dev.url, 'hardhat_metadata', [])).body.result).toMatchObject({ instanceId: ours!.instanceId });
    const [refused, anvilRefused] = await both('anvil_setMinGasPrice', ['0x1']);
    expect(refused).toEqual(anvilRefused);
  });
});

describe('traces of a whole block, and a reset', () => {
  it('debug_traceBlockByNumber and ByHash trace each transaction of a block as debug_traceTransaction does; null for no block', async () => {
    await rpc(dev.url, 'evm_setIntervalMining', [0]);
    await rpc(dev.url, 'evm_setAutomine', [false]);
    let hashes: string[];
    try {
      hashes = [];
      for (const value of [1n, 2n])
        hashes.push(
          (
            await rpc<string>(dev.url, 'eth_sendTransaction', [
              { from: TEST_ADDRESS_0, to: TEST_ADDRESS_1, value: `0x${value.toString(16)}`, gas: '0x5208' },
            ])
          ).body.result!,
        );
      await rpc(dev.url, 'evm_mine', []);
    } finally {
      await rpc(dev.url, 'evm_setAutomine', [true]);
      await rpc(dev.url, 'evm_setIntervalMining', [1]);
    }
    const receipt = (
      await rpc<{ blockNumber: string; blockHash: string }>(dev.url, 'eth_getTransactionReceipt', [hashes[0]])
    ).body.result!;
    const config = { tracer: 'callTracer' };
    const byNumber = (
      await rpc<{ txHash: string; result: unknown }[]>(dev.url, 'debug_traceBlockByNumber', [
        receipt.blockNumber,
        config,
      ])
    ).body.result!;
    expect(byNumber.map((t) => t.txHash)).toEqual(hashes);
    for (const [i, trace] of byNumber.entries())
      expect(trace.result).toEqual((await rpc(dev.url, 'debug_traceTransaction', [hashes[i], config])).body.result);
    expect((await rpc(dev.url, 'debug_traceBlockByHash', [receipt.blockHash, config])).body.result).toEqual(byNumber);
    expect((await rpc(dev.url, 'debug_traceBlockByNumber', ['0xffffff', config])).body.result).toBeNull();
  });

  it('anvil_reset (and hardhat_reset) takes a dev chain back to its genesis, as a fresh one; a fork is refused', async () => {
    const node = await startTestNode({ dev: true });
    try {
      await rpc(node.url, 'anvil_setBalance', ['0x000000000000000000000000000000000000bEEF', '0x99']);
      await rpc(node.url, 'anvil_mine', [5]);
      expect(Number((await rpc<string>(node.url, 'eth_blockNumber', [])).body.result)).toBeGreaterThan(5);
      const refused = (await rpc(node.url, 'anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1' } }])).body
        .error;
      expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining('forking is not served') });
      expect((await rpc(node.url, 'hardhat_reset', [])).body).toMatchObject({ result: null });
      // Back at block 0 (an idle block may follow at once: dev mode makes one each idle second).
      expect(Number((await rpc<string>(node.url, 'eth_blockNumber', [])).body.result)).toBeLessThan(2);
      expect(
        (await rpc(node.url, 'eth_getBalance', ['0x000000000000000000000000000000000000bEEF', 'latest'])).body.result,
      ).toBe('0x0');
      const sent = (
        await rpc<string>(node.url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, to: TEST_ADDRESS_1, value: '0x1' }])
      ).body.result!;
      expect((await rpc<{ status: string }>(node.url, 'eth_getTransactionReceipt', [sent])).body.result!.status).toBe(
        '0x1',
      );
    } finally {
      await node.stop();
    }
  });
});

describe('eth_createAccessList', () => {
  it('answers the accounts and slots a call touches and the gas it uses with them, as Anvil does', async () => {
    // Runtime: SLOAD slot 3, BALANCE of 0x…beef, stop.
    const runtime = `6003545073${'00'.repeat(18)}beef315000`;
    const init = `0x601c600c600039601c6000f3${runtime}`;
    type Answer = { accessList: { address: string; storageKeys: string[] }[]; gasUsed: string };
    const answers: Answer[] = [];
    for (const url of [dev.url, anvil.url]) {
      const created = (
        await rpc<string>(url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, data: init, gas: '0x30000' }])
      ).body.result!;
      let receipt: { contractAddress: string } | null = null;
      while (!receipt)
        receipt =
          (await rpc<{ contractAddress: string }>(url, 'eth_getTransactionReceipt', [created])).body.result ?? null;
      const answer = (
        await rpc<{ accessList: { address: string; storageKeys: string[] }[]; gasUsed: string }>(
          url,
          'eth_createAccessList',
          [{ from: TEST_ADDRESS_0, to: receipt.contractAddress }, 'latest'],
        )
      ).body.result!;
      answers.push({
        ...answer,
        accessList: answer.accessList.map((entry) => ({
          ...entry,
          address: entry.address === receipt!.contractAddress.toLowerCase() ? 'the contract' : entry.address,
        })),
      });
    }
    // Anvil lists the accounts in no fixed order: compared as sets.
    const sorted = (answer: Answer) => ({
      ...answer,
      accessList: [...answer.accessList].sort((a, b) => a.address.localeCompare(b.address)),
    });
    expect(sorted(answers[0]!)).toEqual(sorted(answers[1]!));
    expect(answers[0]!.accessList.map((entry) => entry.address)).toContain(
      '0x000000000000000000000000000000000000beef',
    );
  });
});

describe('dev-mode transactions as Anvil sends them', () => {
  it('legacy with a tip, EIP-2930 with a list, EIP-1559, a failed create and an unfunded sender: the same receipts and state as Anvil', async () => {
    const whale = '0x00000000000000000000000000000000000a11ce';
    const payee = '0x00000000000000000000000000000000000b0b00';
    const broke = '0x00000000000000000000000000000000000dead1';
    const base = BigInt(
      (await rpc<{ baseFeePerGas: string }>(dev.url, 'eth_getBlockByNumber', ['latest', false])).body.result!
        .baseFeePerGas,
    );
    const hex = (n: bigint) => `0x${n.toString(16)}`;
    const script = [
      { to: payee, value: '0x64', gas: '0x5208', gasPrice: hex(base * 2n) },
      {
        to: payee,
        value: '0x65',
        gas: '0x10000',
        gasPrice: hex(base * 2n),
        accessList: [{ address: payee, storageKeys: [`0x${'00'.repeat(31)}07`] }],
      },
      { to: payee, value: '0x66', gas: '0x5208', maxFeePerGas: hex(base * 3n), maxPriorityFeePerGas: hex(base / 2n) },
      { data: '0x60006000fd', gas: '0x20000', maxFeePerGas: hex(base * 3n), maxPriorityFeePerGas: '0x0' },
    ];
    const seen: unknown[] = [];
    for (const url of [dev.url, anvil.url]) {
      await rpc(url, 'anvil_setBalance', [whale, '0xde0b6b3a7640000']);
      await rpc(url, 'anvil_impersonateAccount', [whale]);
      await rpc(url, 'anvil_impersonateAccount', [broke]);
      const receipts = [];
      for (const fields of script) {
        // Anvil's base fee moves block by block; pinned to svc-node's, so the prices compare.
        if (url === anvil.url) await rpc(url, 'anvil_setNextBlockBaseFeePerGas', [hex(base)]);
        const hash = (await rpc<string>(url, 'eth_sendTransaction', [{ from: whale, ...fields }])).body.result!;
        let receipt: Record<string, unknown> | null = null;
        while (!receipt)
          receipt = (await rpc<Record<string, unknown>>(url, 'eth_getTransactionReceipt', [hash])).body.result ?? null;
        const { status, type, gasUsed, contractAddress, effectiveGasPrice } = receipt;
        receipts.push({ status, type, gasUsed, contractAddress, effectiveGasPrice });
      }
      const unfunded = (
        await rpc(url, 'eth_sendTransaction', [{ from: broke, to: payee, value: '0x1', gas: '0x5208' }])
      ).body.error as { message: string } | undefined;
      const state = await Promise.all(
        [whale, payee].flatMap((address) => [
          rpc(url, 'eth_getBalance', [address, 'latest']).then((r) => r.body.result),
          rpc(url, 'eth_getTransactionCount', [address, 'latest']).then((r) => r.body.result),
        ]),
      );
      seen.push({ receipts, unfunded: unfunded?.message.toLowerCase().includes('insufficient funds'), state });
    }
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toMatchObject({
      receipts: [
        { status: '0x1', type: '0x0', effectiveGasPrice: hex(base * 2n) },
        { status: '0x1', type: '0x1' },
        { status: '0x1', type: '0x2', effectiveGasPrice: hex(base + base / 2n) },
        { status: '0x0', type: '0x2', contractAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/) },
      ],
      unfunded: true,
    });
  });

  it('keeps nonces to 2^64 − 1 exactly (EIP-2681): a contract creates until its nonce is full, then its create fails, as on Anvil', async () => {
    // Runtime: CREATE(0, 0, 0), its address in slot 0.
    const factoryCode = '0x600060006000f060005500';
    const seen: unknown[] = [];
    for (const [i, url] of [dev.url, anvil.url].entries()) {
      const factory = `0x00000000000000000000000000000000000f00${i}0`;
      const account = `0x00000000000000000000000000000000000f01${i}0`;
      await rpc(url, 'anvil_setCode', [factory, factoryCode]);
      await rpc(url, 'anvil_setNonce', [factory, '0xfffffffffffffffe']);
      await rpc(url, 'anvil_setNonce', [account, '0xffffffffffffffff']);
      const count = async (address: string) =>
        (await rpc<string>(url, 'eth_getTransactionCount', [address, 'latest'])).body.result;
      const runs = [];
      for (let round = 0; round < 2; round++) {
        const hash = (
          await rpc<string>(url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, to: factory, gas: '0x30000' }])
        ).body.result!;
        let receipt: { status: string; gasUsed: string } | null = null;
        while (!receipt)
          receipt =
            (await rpc<{ status: string; gasUsed: string }>(url, 'eth_getTransactionReceipt', [hash])).body.result ??
            null;
        const created = (await rpc<string>(url, 'eth_getStorageAt', [factory, '0x0', 'latest'])).body.result!;
        runs.push({
          status: receipt.status,
          gasUsed: receipt.gasUsed,
          created: BigInt(created) !== 0n,
          nonce: await count(factory),
        });
      }
      seen.push({ runs, account: await count(account) });
    }
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toEqual({
      runs: [
        { status: '0x1', gasUsed: expect.any(String), created: true, nonce: '0xffffffffffffffff' },
        { status: '0x1', gasUsed: expect.any(String), created: false, nonce: '0xffffffffffffffff' },
      ],
      account: '0xffffffffffffffff',
    });
  });

  it("sets the block gas limit, the next block's base fee and the coinbase as Anvil does: the next block has them, a contract reads them, the tip goes to the coinbase", async () => {
    // Runtime: GASLIMIT, BASEFEE and COINBASE into slots 0, 1 and 2.
    const probeCode = '0x45600055486001554160025500';
    const seen: unknown[] = [];
    for (const [i, url] of [dev.url, anvil.url].entries()) {
      const probe = `0x00000000000000000000000000000000000f02${i}0`;
      const coinbase = `0x00000000000000000000000000000000000f03${i}0`;
      await rpc(url, 'anvil_setCode', [probe, probeCode]);
      const answers = [
        (await rpc(url, 'anvil_setBlockGasLimit', ['0x1c9c380'])).body.result,
        (await rpc(url, 'anvil_setNextBlockBaseFeePerGas', ['0x77359400'])).body.result,
        (await rpc(url, 'anvil_setCoinbase', [coinbase])).body.result,
      ];
      const hash = (
        await rpc<string>(url, 'eth_sendTransaction', [
          {
            from: TEST_ADDRESS_0,
            to: probe,
            gas: '0x30000',
            maxFeePerGas: '0x2540be400',
            maxPriorityFeePerGas: '0x3b9aca00',
          },
        ])
      ).body.result!;
      let receipt: { blockNumber: string; gasUsed: string; effectiveGasPrice: string } | null = null;
      while (!receipt)
        receipt =
          (
            await rpc<{ blockNumber: string; gasUsed: string; effectiveGasPrice: string }>(
              url,
              'eth_getTransactionReceipt',
              [hash],
            )
          ).body.result ?? null;
      const block = (
        await rpc<{ gasLimit: string; baseFeePerGas: string; miner: string }>(url, 'eth_getBlockByNumber', [
          receipt.blockNumber,
          false,
        ])
      ).body.result!;
      const slot = async (n: string) =>
        BigInt((await rpc<string>(url, 'eth_getStorageAt', [probe, n, receipt!.blockNumber])).body.result!);
      const balance = BigInt((await rpc<string>(url, 'eth_getBalance', [coinbase, receipt.blockNumber])).body.result!);
      seen.push({
        answers,
        block: { gasLimit: block.gasLimit, baseFeePerGas: block.baseFeePerGas, miner: block.miner === coinbase },
        read: [await slot('0x0'), await slot('0x1'), (await slot('0x2')) === BigInt(coinbase)],
        effectiveGasPrice: receipt.effectiveGasPrice,
        tipToCoinbase: balance === BigInt(receipt.gasUsed) * 1_000_000_000n,
      });
    }
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toEqual({
      answers: [true, null, null],
      block: { gasLimit: '0x1c9c380', baseFeePerGas: '0x77359400', miner: true },
      read: [30_000_000n, 2_000_000_000n, true],
      effectiveGasPrice: '0xb2d05e00',
      tipToCoinbase: true,
    });
  });

  it('refuses blob fields and an unknown type with the reason', async () => {
    const blob = (
      await rpc(dev.url, 'eth_sendTransaction', [
        {
          from: TEST_ADDRESS_0,
          to: TEST_ADDRESS_1,
          maxFeePerBlobGas: '0x1',
          blobVersionedHashes: [`0x01${'00'.repeat(31)}`],
        },
      ])
    ).body.error;
    expect(blob).toMatchObject({ code: -32602, message: expect.stringContaining('blob transactions') });
    const typed = (
      await rpc(dev.url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, to: TEST_ADDRESS_1, type: '0x3' }])
    ).body.error;
    expect(typed).toMatchObject({ code: -32602, message: expect.stringContaining('type 0x3') });
  });
});

describe('the prestateTracer', () => {
  it('answers every account a transaction touched as it was before it, as Anvil does (its coinbase aside)', async () => {
    // BALANCE of 0x…c0de: an account no other test here touches, so both chains hold it alike.
    const runtime = `6003545073${'00'.repeat(18)}c0de315000`;
    const init = `0x601c600c600039601c6000f3${runtime}`;
    const seen: Record<string, unknown>[] = [];
    for (const url of [dev.url, anvil.url]) {
      const receiptOf = async (hash: string) => {
        for (;;) {
          const r = (
            await rpc<{ contractAddress: string; blockNumber: string }>(url, 'eth_getTransactionReceipt', [hash])
          ).body.result;
          if (r) return r;
        }
      };
      const created = await receiptOf(
        (await rpc<string>(url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, data: init, gas: '0x30000' }])).body
          .result!,
      );
      const contract = created.contractAddress.toLowerCase();
      await rpc(url, 'anvil_setStorageAt', [contract, '0x3', `0x${'00'.repeat(31)}2a`]);
      const hash = (
        await rpc<string>(url, 'eth_sendTransaction', [{ from: TEST_ADDRESS_0, to: contract, gas: '0x20000' }])
      ).body.result!;
      const mined = await receiptOf(hash);
      const pre = (
        await rpc<Record<string, { balance: string; nonce?: number; code?: string; storage?: Record<string, string> }>>(
          url,
          'debug_traceTransaction',
          [hash, { tracer: 'prestateTracer' }],
        )
      ).body.result!;
      const sender = TEST_ADDRESS_0.toLowerCase();
      const before = `0x${(BigInt(mined.blockNumber) - 1n).toString(16)}`;
      expect(pre[sender]!.balance).toBe((await rpc(url, 'eth_getBalance', [sender, before])).body.result);
      seen.push({
        contract: pre[contract],
        untouched: pre['0x000000000000000000000000000000000000c0de'],
        senderNonce: pre[sender]!.nonce,
      });
    }
    expect(seen[0]).toEqual({ ...seen[1], senderNonce: seen[0]!.senderNonce });
    expect(seen[0]).toMatchObject({ untouched: { balance: '0x0' } });
    expect(seen[0]).toMatchObject({ contract: { storage: { [`0x${'00'.repeat(31)}03`]: `0x${'00'.repeat(31)}2a` } } });
  });
  it('in diffMode answers what the transaction changed — pre and post of the accounts and slots it wrote — as Anvil does', async () => {
    // Runtime: slot 1 = 0x2a, slot 3 = 0 (it held 0x2a).
    const runtime = '0x602a600155600060035500';
    const seen: unknown[] = [];
    for (const [i, url] of [dev.url, anvil.url].entries()) {
      const contract = `0x00000000000000000000000000000000000f04${i}0`;
      await rpc(url, 'anvil_setCode', [contract, runtime]);
      await rpc(url, 'anvil_setStorageAt', [contract, '0x3', `0x${'00'.repeat(31)}2a`]);
      const hash = (
        await rpc<string>(url, 'eth_sendTransaction', [
          {
            from: TEST_ADDRESS_0,
            to: contract,
            gas: '0x20000',
            maxFeePerGas: '0x174876e800',
            maxPriorityFeePerGas: '0x0',
          },
        ])
      ).body.result!;
      for (;;) if ((await rpc(url, 'eth_getTransactionReceipt', [hash])).body.result) break;
      const diff = (
        await rpc<{ pre: Record<string, Record<string, unknown>>; post: Record<string, Record<string, unknown>> }>(
          url,
          'debug_traceTransaction',
          [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }],
        )
      ).body.result!;
      const sender = TEST_ADDRESS_0.toLowerCase();
      seen.push({
        contract: { pre: diff.pre[contract], post: diff.post[contract] },
        sender: { pre: Object.keys(diff.pre[sender] ?? {}).sort(), post: Object.keys(diff.post[sender] ?? {}).sort() },
      });
    }
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toMatchObject({
      contract: {
        pre: { storage: { [`0x${'00'.repeat(31)}03`]: `0x${'00'.repeat(31)}2a` } },
        post: { storage: { [`0x${'00'.repeat(31)}01`]: `0x${'00'.repeat(31)}2a` } },
      },
      sender: { post: ['balance', 'nonce'] },
    });
  });
});
