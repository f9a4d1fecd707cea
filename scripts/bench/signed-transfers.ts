// The signed native transfers the throughput benchmarks submit (transfers.ts, sync.ts): fresh
// accounts funded from the ten dev accounts, then a ring of transfers among them.
import {
  devnetKey,
  generateKeyPair,
  signTransaction,
  transferPayload,
  UNIT,
  type KeyPair,
  type SignedTransaction,
} from '../../sdk/index.js';

/**
 * `count` fresh accounts, each funded with `amount` (1,000 OMC unless said) by one of the ten dev
 * accounts in turn; `devNonces` are the dev accounts' next nonces (a fresh chain's: zeros), advanced
 * as they are used.
 */
export function fundedAccounts(
  chainId: string,
  count: number,
  devNonces: number[] = Array(10).fill(0),
  amount = 1000n * UNIT,
): { accounts: KeyPair[]; funding: SignedTransaction[] } {
  const dev = Array.from({ length: 10 }, (_, i) => devnetKey('account', i));
  const accounts = Array.from({ length: count }, () => generateKeyPair());
  const funding = accounts.map((account, i) => {
    const from = i % dev.length;
    return signTransaction(
      {
        chainId,
        kind: 'transfer',
        nonce: devNonces[from]!++,
        payload: transferPayload(account.address, 'OMC', amount),
      },
      dev[from]!,
    );
  });
  return { accounts, funding };
}

/** Account `i`'s transfer at nonce `n`: to the account `n + 1` places on, so every account sends and receives. */
export function ringTransfer(chainId: string, accounts: readonly KeyPair[], i: number, n: number, amount: bigint) {
  return signTransaction(
    {
      chainId,
      kind: 'transfer',
      nonce: n,
      payload: transferPayload(accounts[(i + n + 1) % accounts.length]!.address, 'OMC', amount),
    },
    accounts[i]!,
  );
}
