import Type from 'typebox';
import { NEWEST_RULES_VERSION } from '../../chain/rules-version.js';
import { describe, expect, it } from 'vitest';
import { devnetKey, encode, signTransaction } from '../../sdk/index.js';
import { BLOCK_GAS_LIMIT_KEY, executeTransactions } from '../../chain/executor.js';
import { TxKindRegistry } from '../../chain/tx-kinds.js';
import { TxFailure, type TxKind } from '../../chain/contract.js';
import { accountKey, decodeAccount, encodeAccount } from '../../chain/state/accounts.js';
import { encodeReceiptForRoot } from '../../chain/receipts.js';
import { captureLog } from '../helpers/log-capture.js';

const alice = devnetKey('account', 0);
const env = {
  chainId: 'test-1',
  height: 1,
  timestamp: 1_000,
  parentHash: `0x${'00'.repeat(32)}`,
  lastCommit: null,
  proposer: devnetKey('validator', 0).address,
  rulesVersion: NEWEST_RULES_VERSION,
};

/** A kind that behaves as its payload says: uses gas, pays a fee and fails keeping it, throws, or moves the nonce itself. */
const gasKind: TxKind = {
  kind: 'meter.use',
  summary: 'uses gas as told',
  payload: Type.Object({ gas: Type.Integer(), mode: Type.String() }),
  gasLimit: (payload) => (payload as { gas: number }).gas,
  managesNonce: true,
  async execute(ctx) {
    const { gas, mode } = ctx.payload as { gas: number; mode: string };
    if (mode === 'throw') throw new TxFailure('invalid_params', 'refused outright');
    const sender = ctx.account(ctx.tx.from);
    // Like the EVM: the nonce moves and a fee is paid whether the call succeeds or reverts.
    ctx.setAccount(ctx.tx.from, { ...sender, nonce: sender.nonce + 1n, omc: sender.omc - 10n });
    await Promise.resolve();
    if (mode === 'revert')
      return { gasUsed: gas, failed: { name: 'execution_reverted', reason: 'no way' }, receipt: { logs: [] } };
    return {
      gasUsed: gas,
      receipt: { logs: [{ address: ctx.tx.from, topics: [`0x${'11'.repeat(32)}`], data: '0x01' }] },
    };
  },
};

function setup(gasLimit?: number) {
  const kinds = new TxKindRegistry();
  kinds.add(gasKind, 'meter', () => undefined);
  const base = new Map<string, Uint8Array>([
    [accountKey(alice.address), encodeAccount({ omc: 1_000n, ogt: 0n, nonce: 0n, bonded: {} })],
  ]);
  if (gasLimit !== undefined) base.set(BLOCK_GAS_LIMIT_KEY, encode(gasLimit));
  return { kinds, state: { get: (key: string) => base.get(key) } };
}

const tx = (nonce: number, gas: number, mode: string) =>
  signTransaction({ chainId: env.chainId, kind: 'meter.use', nonce, payload: { gas, mode } }, alice);

describe('transaction outcomes, gas and nonces', () => {
  it('an asynchronous kind reports gas and receipt details; the chain adds the block-cumulative gas', async () => {
    const { kinds, state } = setup();
    const result = await executeTransactions(
      [tx(0, 100, 'ok'), tx(1, 50, 'ok')],
      env,
      state,
      kinds,
      captureLog().log,
      true,
    );
    expect(result.receipts.map((r) => [r.status, r.gasUsed, r.cumulativeGasUsed])).toEqual([
      ['success', 100, 100],
      ['success', 50, 150],
    ]);
    expect(result.receipts[0]!.logs).toHaveLength(1);
  });

  it('a failure returned keeps what the kind wrote (its fee and nonce); one thrown keeps only the nonce the chain moves', async () => {
    const { kinds, state } = setup();
    const result = await executeTransactions(
      [tx(0, 100, 'revert'), tx(1, 100, 'throw')],
      env,
      state,
      kinds,
      captureLog().log,
      true,
    );
    expect(result.receipts.map((r) => [r.status, r.error?.name])).toEqual([
      ['failed', 'execution_reverted'],
      ['failed', 'invalid_params'],
    ]);
    expect(decodeAccount(result.overlay.get(accountKey(alice.address)))).toMatchObject({ omc: 990n, nonce: 2n });
  });

  it('a kind that manages its nonce is not moved twice', async () => {
    const { kinds, state } = setup();
    const result = await executeTransactions([tx(0, 10, 'ok')], env, state, kinds, captureLog().log, true);
    expect(decodeAccount(result.overlay.get(accountKey(alice.address))).nonce).toBe(1n);
  });

  it('a producer leaves out what no longer fits the block gas limit; an imported block that holds more is rejected', async () => {
    const { kinds, state } = setup(250);
    const produced = await executeTransactions(
      [tx(0, 200, 'ok'), tx(1, 100, 'ok')],
      env,
      state,
      kinds,
      captureLog().log,
      false,
    );
    expect(produced.included).toHaveLength(1);
    expect(produced.rejected[0]!.message).toMatch(/does not fit in what is left of the block gas limit \(50 of 250\)/);
    await expect(
      executeTransactions([tx(0, 200, 'ok'), tx(1, 100, 'ok')], env, state, kinds, captureLog().log, true),
    ).rejects.toThrow(/block gas limit/);
  });

  it('the receipt root commits to gas and logs only for receipts that carry them (existing chains keep their roots)', () => {
    const plain = {
      transactionHash: `0x${'22'.repeat(32)}`,
      blockNumber: 1,
      index: 0,
      from: alice.address,
      kind: 'transfer',
      status: 'success' as const,
    };
    const withGas = { ...plain, gasUsed: 21_000, cumulativeGasUsed: 21_000, logs: [] };
    expect(encodeReceiptForRoot(plain)).toEqual(encode([Buffer.from('22'.repeat(32), 'hex'), 0, 1, '', '']));
    expect(encodeReceiptForRoot(withGas)).not.toEqual(encodeReceiptForRoot(plain));
    expect(
      encodeReceiptForRoot({ ...withGas, logs: [{ address: alice.address, topics: [], data: '0x01' }] }),
    ).not.toEqual(encodeReceiptForRoot(withGas));
  });
});
