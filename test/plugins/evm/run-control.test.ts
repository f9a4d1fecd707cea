import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEWEST_RULES_VERSION } from '../../../chain/rules-version.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { EVM_HARDFORK } from '../../../chain/ethereum-envelope.js';
import { accountKey, encodeAccount } from '../../../chain/state/accounts.js';
import { codeKey, contractKey, encodeContract } from '../../../plugins/evm/state.js';
import { DEVNET_BASE_FEE, DEVNET_BLOCK_GAS_LIMIT, DEVNET_EVM_CHAIN_ID } from '../../../plugins/evm/params.js';
import { EvmDeadlineError } from '../../../plugins/evm/run-control.js';
import type { EvmRunner } from '../../../plugins/evm/runner.js';
import { CONFORMANCE_CHAIN_ID, NodePath } from '../../../scripts/conformance/node-path.js';
import { executeTransactions } from '../../../chain/executor.js';
import { createLogger } from '../../../kernel/log.js';
import { fromHex, toHex } from '../../../sdk/bytes.js';
import type { Address } from '../../../sdk/address.js';
import { rpc, startTestNode, waitFor, type TestNode } from '../../helpers/test-node.js';
import { TEST_KEY_0 } from '../../helpers/foundry.js';

/** JUMPDEST PUSH1 0 JUMP: runs until its gas runs out. */
const LOOP = '0x5b600056';
/** Init code returning LOOP. */
const LOOP_INIT = '0x6004600c60003960046000f35b600056';
/** Init code returning JUMPDEST PUSH1 32 PUSH1 0 KECCAK256 POP PUSH1 0 JUMP STOP: the slowest work per gas outside precompiles (about 12 million gas a second), so a call of the cap's 12,000,000 gas takes far longer than its 300 ms budget. */
const HASH_LOOP_INIT = '0x600b600c600039600b6000f35b60206000205060005600';
const CONTRACT: Address = `svc1${'c0de'.padStart(40, '0')}`;
const CALLER: Address = `svc1${'ca11'.padStart(40, '0')}`;

function loopState(): Map<string, Uint8Array> {
  const code = fromHex(LOOP);
  const codeHash = keccak_256(code);
  return new Map<string, Uint8Array>([
    [accountKey(CONTRACT), encodeAccount({ omc: 0n, ogt: 0n, nonce: 1n, bonded: {} })],
    [accountKey(CALLER), encodeAccount({ omc: 10n ** 30n, ogt: 0n, nonce: 0n, bonded: {} })],
    [contractKey(CONTRACT.slice(4)), encodeContract({ codeHash, creator: CALLER, createdAt: 0 })],
    [codeKey(toHex(codeHash).slice(2)), code],
  ]);
}

describe('the EVM runner: pauses, a chain-first order and deadlines', () => {
  let runner: EvmRunner;
  const state = loopState();
  const read = (key: string) => state.get(key);
  const env = {
    chainId: 'svc-devnet',
    lastCommit: null,
    height: 1,
    timestamp: Date.now(),
    proposer: CALLER,
    rulesVersion: NEWEST_RULES_VERSION,
    parentHash: toHex(new Uint8Array(32)),
  };
  const call = (gas: bigint, budgetMs = 600_000) =>
    runner.call(
      {
        from: CALLER,
        to: CONTRACT,
        data: new Uint8Array(),
        value: 0n,
        gasLimit: gas,
        maxFeePerGas: 0n,
        maxPriorityFeePerGas: 0n,
      },
      read,
      env,
      Number(gas),
      undefined,
      budgetMs,
    );

  beforeAll(async () => {
    runner = (
      await NodePath.create(EVM_HARDFORK, {
        evmChainId: DEVNET_EVM_CHAIN_ID,
        baseFee: DEVNET_BASE_FEE,
        blockGasLimit: BigInt(DEVNET_BLOCK_GAS_LIMIT),
      })
    ).rules.runner;
  });

  it('lets timers and I/O in while a long run goes on', async () => {
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    const outcome = await call(5_000_000n);
    clearInterval(timer);
    expect(outcome.failure?.name).toBe('out_of_gas');
    // A run that held the thread would let the timer fire at most once, after it.
    expect(turns).toBeGreaterThan(5);
  });

  it("makes a request's run wait while the chain's run goes, so the chain's finishes first", async () => {
    const finished: string[] = [];
    // The request starts first and has half the work: sharing the thread evenly, it would end first.
    const request = call(5_000_000n).then(() => finished.push('request'));
    await new Promise((resolve) => setImmediate(resolve));
    const chain = runner
      .runCallback(
        {
          origin: 'test',
          to: CONTRACT,
          from: CALLER,
          data: new Uint8Array(),
          gasLimit: 10_000_000n,
          done: () => undefined,
        },
        read,
        { setAccount: () => undefined, writeState: () => undefined },
        env,
      )
      .then((result) => finished.push(`chain ${result.status}`));
    await Promise.all([request, chain]);
    expect(finished).toEqual(['chain out_of_gas', 'request']);
  });

  it("does not count the time a request's run waits for the chain against its budget", async () => {
    const chain = runner.runCallback(
      {
        origin: 'test',
        to: CONTRACT,
        from: CALLER,
        data: new Uint8Array(),
        gasLimit: 20_000_000n,
        done: () => undefined,
      },
      read,
      { setAccount: () => undefined, writeState: () => undefined },
      env,
    );
    // About 10 ms of its own work behind some 800 ms of the chain's: within 200 ms only if the wait is
    // not counted. The margins are wide both ways, so a loaded machine (its own work several times
    // slower, collections of a large heap) cannot make the claim look false.
    const outcome = await call(250_000n, 200);
    expect(outcome.failure?.name).toBe('out_of_gas');
    await chain;
  });

  it("runs a batch of calls a few at a time, so each one's budget measures its own run", async () => {
    // 200 calls of some 11 ms each: all at once, each would take the whole batch's time (over two
    // seconds, past the 1.5 s budget) and nearly every one would be aborted; a few at a time, some 45 ms
    // each, a thirtieth of it. A stall of a loaded machine can still take one call's margin (beside two
    // CPU burners, a node and the suite, one of 200 was aborted once): a few may be. Every call is
    // waited for, so none is left running into the next test.
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () =>
        call(300_000n, 1_500).then(
          (outcome) => outcome.failure?.name,
          (error: unknown) => (error instanceof EvmDeadlineError ? 'aborted' : (error as Error).message),
        ),
      ),
    );
    expect(outcomes.filter((name) => name !== 'out_of_gas' && name !== 'aborted')).toEqual([]);
    expect(outcomes.filter((name) => name === 'aborted').length).toBeLessThanOrEqual(5);
  });

  it("leaves a block's transactions after its deadline out, whole, but always runs the first", async () => {
    const path = await NodePath.create(EVM_HARDFORK, {
      evmChainId: DEVNET_EVM_CHAIN_ID,
      baseFee: DEVNET_BASE_FEE,
      blockGasLimit: BigInt(DEVNET_BLOCK_GAS_LIMIT),
    });
    const signer = privateKeyToAccount(TEST_KEY_0);
    const blockState = new Map(state);
    blockState.set(
      accountKey(`svc1${signer.address.slice(2).toLowerCase()}`),
      encodeAccount({ omc: 10n ** 30n, ogt: 0n, nonce: 0n, bonded: {} }),
    );
    const txs = await Promise.all(
      [0, 1, 2].map(async (nonce) => {
        const raw = await signer.signTransaction({
          chainId: DEVNET_EVM_CHAIN_ID,
          to: `0x${CONTRACT.slice(4)}`,
          gas: 2_000_000n,
          nonce,
          maxFeePerGas: DEVNET_BASE_FEE,
          maxPriorityFeePerGas: 0n,
        });
        const decoded = path.decode(fromHex(raw));
        if (!('tx' in decoded)) throw new Error(`not decoded: ${JSON.stringify(decoded)}`);
        return decoded.tx;
      }),
    );
    const blockEnv = {
      chainId: CONFORMANCE_CHAIN_ID,
      height: 1,
      timestamp: Date.now(),
      parentHash: toHex(new Uint8Array(32)),
      lastCommit: null,
      proposer: CALLER,
      rulesVersion: NEWEST_RULES_VERSION,
    };
    // A deadline already past: the first runs to its end, the others are left for a later block, not refused.
    const late = await executeTransactions(
      txs,
      blockEnv,
      { get: (key: string) => blockState.get(key) },
      path.kinds,
      createLogger({ level: 'silent', format: 'json' }),
      false,
      undefined,
      { deadline: performance.now() - 1 },
    );
    expect([late.included.length, late.rejected.length, late.receipts[0]?.gasUsed]).toEqual([1, 0, 2_000_000]);
    const unhurried = await executeTransactions(
      txs,
      blockEnv,
      { get: (key: string) => blockState.get(key) },
      path.kinds,
      createLogger({ level: 'silent', format: 'json' }),
      false,
    );
    expect(unhurried.included.length).toBe(3);
  });

  it('stops a run at its deadline with "execution aborted", and the runner serves the next run', async () => {
    const started = performance.now();
    const error = await call(16_000_000n, 50).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EvmDeadlineError);
    expect((error as Error).message).toBe('execution aborted (timeout = 50 ms)');
    expect(performance.now() - started).toBeLessThan(10_000);
    expect((await call(100_000n)).failure?.name).toBe('out_of_gas');
  });
});

describe('a node under endless loops: calls have a budget, blocks keep their rhythm', () => {
  let node: TestNode;
  let loop: string;
  let hashLoop: string;
  const account = privateKeyToAccount(TEST_KEY_0);
  const fees = { maxFeePerGas: 5_000_000_000n, maxPriorityFeePerGas: 0n };
  let chainId: number;
  const nonce = async () =>
    Number(BigInt((await rpc<string>(node.url, 'eth_getTransactionCount', [account.address, 'pending'])).body.result!));
  type Receipt = { blockNumber: string; status: string; contractAddress: string };
  const receipt = async (hash: string): Promise<Receipt> =>
    (await waitFor(
      async () => (await rpc<Receipt | null>(node.url, 'eth_getTransactionReceipt', [hash])).body.result,
      Boolean,
      60_000,
      `receipt of ${hash}`,
    ))!;

  beforeAll(async () => {
    // 300 ms blocks: a lone producer stops starting transactions 240 ms in. Calls may run 300 ms.
    node = await startTestNode({ validator: { blockTime: 300 }, evm: { callTimeoutMs: 300 } });
    chainId = Number(BigInt((await rpc<string>(node.url, 'eth_chainId')).body.result!));
    const deploy = async (data: Hex) =>
      (
        await receipt(
          (
            await rpc<string>(node.url, 'eth_sendRawTransaction', [
              await account.signTransaction({ chainId, data, gas: 100_000n, nonce: await nonce(), ...fees }),
            ])
          ).body.result!,
        )
      ).contractAddress;
    loop = await deploy(LOOP_INIT);
    hashLoop = await deploy(HASH_LOOP_INIT);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("answers eth_blockNumber while an eth_call loops, and ends the call at evm.callTimeoutMs with geth's error", async () => {
    let callAnswered = false;
    const looping = rpc(node.url, 'eth_call', [{ from: account.address, to: hashLoop }, 'latest']).then((reply) => {
      callAnswered = true;
      return reply;
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await rpc<string>(node.url, 'eth_blockNumber')).body.result).toMatch(/^0x/);
    expect(callAnswered).toBe(false);
    expect((await looping).body.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 300 ms)' });
    const estimate = (await rpc(node.url, 'eth_estimateGas', [{ from: account.address, to: hashLoop }])).body.error;
    expect(estimate).toEqual({ code: -32000, message: 'execution aborted (timeout = 300 ms)' });
  });

  it('spreads transactions that each run past the block deadline over one block each', async () => {
    const first = await nonce();
    const raws = await Promise.all(
      [0, 1, 2].map((i) =>
        account.signTransaction({ chainId, to: loop as Hex, gas: 12_000_000n, nonce: first + i, ...fees }),
      ),
    );
    // One JSON-RPC batch: admitted together, so one producer round sees all three.
    const response = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] })),
      ),
    });
    const hashes = ((await response.json()) as { id: number; result: string }[])
      .sort((a, b) => a.id - b.id)
      .map((reply) => reply.result);
    const receipts = await Promise.all(hashes.map(receipt));
    expect(receipts.map((r) => r.status)).toEqual(['0x0', '0x0', '0x0']);
    const heights = receipts.map((r) => Number(BigInt(r.blockNumber)));
    expect(new Set(heights).size).toBe(3);
  });
});
