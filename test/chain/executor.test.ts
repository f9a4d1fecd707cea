import { describe, expect, it } from 'vitest';
import { NEWEST_RULES_VERSION } from '../../chain/rules-version.js';
import { devnetKey, generateKeyPair, signTransaction, transferPayload } from '../../sdk/index.js';
import { executeTransactions } from '../../chain/executor.js';
import { chainPlugin } from '../../chain/plugin.js';
import { genesisState } from '../../chain/genesis.js';
import { devnetGenesis } from '../../node/genesis.js';
import { TxKindRegistry } from '../../chain/tx-kinds.js';
import type { AnyPlugin } from '../../kernel/plugin.js';
import { accountKey, decodeAccount } from '../../chain/state/accounts.js';
import { captureLog } from '../helpers/log-capture.js';

function setup() {
  const genesis = devnetGenesis();
  const kinds = TxKindRegistry.collect([{ definition: chainPlugin(genesis) as AnyPlugin, service: () => undefined }]);
  const base = new Map(genesisState(genesis));
  const env = {
    chainId: 'svc-devnet-1',
    height: 1,
    timestamp: 1,
    parentHash: `0x${'00'.repeat(32)}`,
    lastCommit: null,
    proposer: devnetKey('validator', 0).address,
    rulesVersion: NEWEST_RULES_VERSION,
  };
  return { genesis, kinds, state: { get: (key: string) => base.get(key) }, env };
}

describe('transaction execution', () => {
  it('a transaction that fails on execution gets a failed receipt, moves only its nonce, and later ones still run', async () => {
    const { kinds, state, env } = setup();
    const alice = devnetKey('account', 0);
    const stranger = generateKeyPair();
    const all = decodeAccount(state.get(accountKey(alice.address))).omc;
    const txs = [
      signTransaction(
        { chainId: env.chainId, kind: 'transfer', nonce: 0, payload: transferPayload(stranger.address, 'OMC', all) },
        alice,
      ),
      signTransaction(
        { chainId: env.chainId, kind: 'transfer', nonce: 1, payload: transferPayload(stranger.address, 'OMC', 1n) },
        alice,
      ),
      signTransaction(
        { chainId: env.chainId, kind: 'transfer', nonce: 0, payload: transferPayload(alice.address, 'OMC', 5n) },
        stranger,
      ),
    ];
    const result = await executeTransactions(txs, env, state, kinds, captureLog().log, true);
    expect(result.receipts.map((r) => r.status)).toEqual(['success', 'failed', 'success']);
    expect(result.receipts[1]!.error).toMatchObject({ name: 'insufficient_funds' });
    const aliceAfter = decodeAccount(result.overlay.get(accountKey(alice.address)));
    expect(aliceAfter).toMatchObject({ omc: 5n, nonce: 2n });
    expect(decodeAccount(result.overlay.get(accountKey(stranger.address)))).toMatchObject({ omc: all - 5n, nonce: 1n });
  });

  it('leaves invalid transactions out when producing, and rejects them when importing', async () => {
    const { kinds, state, env } = setup();
    const alice = devnetKey('account', 0);
    const gap = signTransaction(
      { chainId: env.chainId, kind: 'transfer', nonce: 3, payload: transferPayload(alice.address, 'OMC', 1n) },
      alice,
    );
    const produced = await executeTransactions([gap], env, state, kinds, captureLog().log, false);
    expect(produced.included).toHaveLength(0);
    expect(produced.rejected[0]).toMatchObject({ error: 'nonce_gap' });
    await expect(executeTransactions([gap], env, state, kinds, captureLog().log, true)).rejects.toThrow(
      /ahead of the account nonce/,
    );
  });

  it("stops starting transactions where finishing the ones in, at finishMsPerTx each, would end past the producer's deadline", async () => {
    const { kinds, state, env } = setup();
    const alice = devnetKey('account', 0);
    const txs = Array.from({ length: 40 }, (_, nonce) =>
      signTransaction(
        { chainId: env.chainId, kind: 'transfer', nonce, payload: transferPayload(alice.address, 'OMC', 1n) },
        alice,
      ),
    );
    const run = (finishMsPerTx?: number) =>
      executeTransactions(txs, env, state, kinds, captureLog().log, false, undefined, {
        deadline: performance.now() + 10_000,
        ...(finishMsPerTx === undefined ? {} : { finishMsPerTx }),
      });
    expect((await run()).included).toHaveLength(40);
    // Ten seconds left, a second to finish each: the tenth is the last that fits (fewer on a machine so slow that time passes meanwhile).
    const ready = (await run(1000)).included.length;
    expect(ready).toBeGreaterThanOrEqual(1);
    expect(ready).toBeLessThanOrEqual(10);
  });
});
