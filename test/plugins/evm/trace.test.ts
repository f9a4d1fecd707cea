import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, encodeDeployData, encodeFunctionData, http, keccak256, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';
import { contracts } from '../../helpers/contracts.js';
import { startAnvil, TEST_ADDRESS_1, TEST_KEY_0 } from '../../helpers/foundry.js';
import type { StructLog } from '../../../plugins/evm/trace/struct-logger.js';
import type { CallFrame } from '../../../plugins/evm/trace/call-tracer.js';

const artifact = (name: string): { abi: Abi; bytecode: Hex } =>
  contracts()[name] as unknown as { abi: Abi; bytecode: Hex };
const account = privateKeyToAccount(TEST_KEY_0);
const CHAIN_ID = 0x737663;
/** The addresses the test key's first deployments get (nonces 0, 2, 4), the same on both chains. */
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const FORWARDER = '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0';
const PROBE = '0xdc64a140aa3e981100a9beca4e685f962f0cf6c9';

interface StructTrace {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLog[];
}
type Frame = CallFrame;

async function call<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const { body } = await rpc<T>(url, method, params);
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result as T;
}

/** What Anvil shows differently from geth, which the node follows: 0x on storage words, a refund of 0 shown. */
function asGeth(log: StructLog): StructLog {
  const { refund, storage, ...rest } = log;
  const strip = (hex: string) => hex.replace(/^0x/, '');
  return {
    ...rest,
    ...(storage ? { storage: Object.fromEntries(Object.entries(storage).map(([k, v]) => [strip(k), strip(v)])) } : {}),
    ...(refund ? { refund } : {}),
  };
}

/** A call frame without what geth and Anvil show differently at the top (the gas given: the transaction's limit in geth) and in logs (Anvil's block index). */
function comparable(frame: Frame, top = true): Record<string, unknown> {
  const { gas, calls, logs, ...rest } = frame;
  return {
    ...rest,
    ...(top ? {} : { gas }),
    ...(calls ? { calls: calls.map((c): Record<string, unknown> => comparable(c, false)) } : {}),
    ...(logs ? { logs: (logs as Record<string, unknown>[]).map(({ index: _index, ...log }) => log) } : {}),
  };
}

describe('debug_traceTransaction and debug_traceCall, step for step as Anvil traces the same transactions', () => {
  let node: TestNode;
  let anvil: { url: string; stop: () => Promise<void> };
  const hashes: Record<string, Hex> = {};

  beforeAll(async () => {
    [node, anvil] = await Promise.all([
      startTestNode({ validator: { blockTime: 100 } }),
      startAnvil(['--chain-id', String(CHAIN_ID), '--hardfork', 'osaka', '--steps-tracing']),
    ]);
    const legacy = { chainId: CHAIN_ID, gasPrice: 2_000_000_000n, type: 'legacy' as const };
    const token = artifact('Token');
    const probe = artifact('Probe');
    // The same signed bytes go to both chains: the same state before each, the same execution.
    const raws: [string, Promise<Hex>][] = [
      [
        'deployToken',
        account.signTransaction({
          ...legacy,
          nonce: 0,
          gas: 2_000_000n,
          data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [10n ** 24n] }),
        }),
      ],
      [
        'transfer',
        account.signTransaction({
          ...legacy,
          nonce: 1,
          gas: 100_000n,
          to: TOKEN,
          data: encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [TEST_ADDRESS_1, 5n] }),
        }),
      ],
      [
        'deployForwarder',
        account.signTransaction({
          ...legacy,
          nonce: 2,
          gas: 1_000_000n,
          data: encodeDeployData({
            abi: artifact('Forwarder').abi,
            bytecode: artifact('Forwarder').bytecode,
            args: [TEST_ADDRESS_1],
          }),
        }),
      ],
      ['forward', account.signTransaction({ ...legacy, nonce: 3, gas: 100_000n, to: FORWARDER, value: 10n ** 15n })],
      ['deployProbe', account.signTransaction({ ...legacy, nonce: 4, gas: 2_000_000n, data: probe.bytecode })],
      [
        'revert',
        account.signTransaction({
          ...legacy,
          nonce: 5,
          gas: 100_000n,
          to: PROBE,
          data: encodeFunctionData({ abi: probe.abi, functionName: 'failWithReason' }),
        }),
      ],
    ];
    for (const url of [node.url, anvil.url]) {
      const client = createPublicClient({ transport: http(url), pollingInterval: 50 });
      for (const [name, signed] of raws) {
        const hash = await client.sendRawTransaction({ serializedTransaction: await signed });
        await client.waitForTransactionReceipt({ hash });
        hashes[name] = hash;
      }
    }
    expect(hashes.transfer).toBe(keccak256(await raws[1]![1]));
  }, 60_000);
  afterAll(async () => {
    await Promise.all([node?.stop(), anvil?.stop()]);
  });

  it('the struct logger shows every opcode of an ERC-20 transfer with the pc, gas, cost, depth, stack and storage Anvil shows', async () => {
    const [ours, theirs] = await Promise.all(
      [node.url, anvil.url].map((url) => call<StructTrace>(url, 'debug_traceTransaction', [hashes.transfer, {}])),
    );
    const receipt = await call<{ gasUsed: string }>(node.url, 'eth_getTransactionReceipt', [hashes.transfer]);
    expect(ours!.structLogs.length).toBeGreaterThan(100);
    expect(ours!.structLogs).toEqual(theirs!.structLogs.map(asGeth));
    expect({ gas: ours!.gas, failed: ours!.failed, returnValue: ours!.returnValue }).toEqual({
      gas: theirs!.gas,
      failed: false,
      returnValue: theirs!.returnValue,
    });
    expect(ours!.gas).toBe(Number(receipt.gasUsed));
    expect(ours!.structLogs.filter((log) => log.op === 'SSTORE').every((log) => log.storage !== undefined)).toBe(true);
  });

  it('the callTracer shows a payment forwarded by a contract as a nested CALL with its value, as Anvil does, and the transaction gas at the top as geth does', async () => {
    const config = { tracer: 'callTracer', tracerConfig: { withLog: true } };
    const [ours, theirs] = await Promise.all(
      [node.url, anvil.url].map((url) => call<Frame>(url, 'debug_traceTransaction', [hashes.forward, config])),
    );
    expect(comparable(ours!)).toEqual(comparable(theirs!));
    expect(ours!.gas).toBe('0x186a0');
    expect(ours!.calls).toEqual([
      expect.objectContaining({
        type: 'CALL',
        from: FORWARDER,
        to: TEST_ADDRESS_1.toLowerCase(),
        value: '0x38d7ea4c68000',
      }),
    ]);
    const transfer = await call<Frame>(node.url, 'debug_traceTransaction', [hashes.transfer, config]);
    expect(transfer.logs).toHaveLength(1);
  });

  it("a reverted transaction traces as failed with geth's error and the decoded reason", async () => {
    const config = { tracer: 'callTracer' };
    const [ours, theirs] = await Promise.all(
      [node.url, anvil.url].map((url) => call<Frame>(url, 'debug_traceTransaction', [hashes.revert, config])),
    );
    expect(comparable(ours!)).toEqual(comparable(theirs!));
    expect(ours).toMatchObject({ error: 'execution reverted', revertReason: 'no way' });
    const steps = await call<StructTrace>(node.url, 'debug_traceTransaction', [hashes.revert, { disableStack: true }]);
    expect(steps.failed).toBe(true);
    expect(steps.structLogs.at(-1)).toMatchObject({ op: 'REVERT' });
    expect(steps.structLogs.every((log) => log.stack === undefined)).toBe(true);
  });

  it("debug_traceCall traces a call on a block's state with either tracer, as Anvil does", async () => {
    const request = {
      from: account.address,
      to: TOKEN,
      data: encodeFunctionData({ abi: artifact('Token').abi, functionName: 'balanceOf', args: [TEST_ADDRESS_1] }),
      gas: '0x30000',
    };
    const [ours, theirs] = await Promise.all(
      [node.url, anvil.url].map((url) =>
        call<Frame>(url, 'debug_traceCall', [request, 'latest', { tracer: 'callTracer' }]),
      ),
    );
    expect(comparable(ours!)).toEqual(comparable(theirs!));
    expect(BigInt(ours!.output!)).toBe(5n);
    const steps = await Promise.all(
      [node.url, anvil.url].map((url) => call<StructTrace>(url, 'debug_traceCall', [request, 'latest', {}])),
    );
    expect(steps[0]!.structLogs).toEqual(steps[1]!.structLogs.map(asGeth));
  });

  it("a transaction traced from inside a block sees the writes of the block's earlier transactions", async () => {
    const client = createPublicClient({ transport: http(node.url), pollingInterval: 50 });
    const { abi } = artifact('Token');
    // Two transfers to a fresh account in one block: the second moves its balance from 5, not from 0 (5,000 gas, not 22,100).
    for (let attempt = 0; ; attempt++) {
      const recipient = privateKeyToAccount(keccak256(`0x${(1000 + attempt).toString(16).padStart(4, '0')}`)).address;
      const nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
      const signed = await Promise.all(
        [5n, 7n].map((amount, i) =>
          account.signTransaction({
            chainId: CHAIN_ID,
            type: 'legacy',
            gasPrice: 2_000_000_000n,
            nonce: nonce + i,
            gas: 100_000n,
            to: TOKEN,
            data: encodeFunctionData({ abi, functionName: 'transfer', args: [recipient, amount] }),
          }),
        ),
      );
      const sent = await Promise.all(
        signed.map((serializedTransaction) => client.sendRawTransaction({ serializedTransaction })),
      );
      const receipts = await Promise.all(sent.map((hash) => client.waitForTransactionReceipt({ hash })));
      if (receipts[0]!.blockNumber !== receipts[1]!.blockNumber) {
        if (attempt < 10) continue;
        throw new Error('ten pairs of transactions sent together never shared a block');
      }
      const [first, second] = await Promise.all(
        sent.map((hash) => call<StructTrace>(node.url, 'debug_traceTransaction', [hash, { disableStack: true }])),
      );
      expect([first!.gas, second!.gas]).toEqual([Number(receipts[0]!.gasUsed), Number(receipts[1]!.gasUsed)]);
      expect(second!.gas).toBeLessThan(first!.gas - 10_000);
      return;
    }
  });

  it('a trace past its bounds is stopped with a clear error, an unknown tracer or transaction is refused, and the node keeps answering', async () => {
    const spin = {
      from: account.address,
      to: PROBE,
      data: encodeFunctionData({ abi: artifact('Probe').abi, functionName: 'spin' }),
      gas: '0x1000000',
    };
    const stopped = await rpc(node.url, 'debug_traceCall', [spin, 'latest', {}]);
    expect(stopped.body.error).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/more than 100000 steps/),
    });
    const timedOut = await rpc(node.url, 'debug_traceCall', [
      spin,
      'latest',
      { tracer: 'callTracer', timeout: '50ms' },
    ]);
    expect(timedOut.body.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^execution timeout/) });
    const unknownTracer = await rpc(node.url, 'debug_traceTransaction', [hashes.transfer, { tracer: '4byteTracer' }]);
    expect(unknownTracer.body.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/4byteTracer.*not served/),
    });
    const unknownTx = await rpc(node.url, 'debug_traceTransaction', [`0x${'ab'.repeat(32)}`]);
    expect(unknownTx.body.error).toMatchObject({ code: -32000, message: expect.stringMatching(/not found/) });
    expect(await call<string>(node.url, 'eth_blockNumber', [])).toMatch(/^0x/);
  });
});
