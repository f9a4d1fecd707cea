import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Account as EthAccount, KECCAK256_NULL } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { decodeAccount } from '../../chain/state/accounts.js';
import { decodeContract } from '../../plugins/evm/state.js';
import type { Log } from '../../chain/receipts.js';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { hexOfAddress } from '../../sdk/address.js';

/** A world state's keys and values as the chain stores them (accounts/…, evm/…). */
export type StateEntries = ReadonlyMap<string, Uint8Array>;

interface AccountView {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storage: Map<string, Uint8Array>;
}

const ACCOUNT = /^accounts\/svc1([0-9a-f]{40})$/;
const CONTRACT = /^evm\/contract\/([0-9a-f]{40})$/;
const STORAGE = /^evm\/storage\/([0-9a-f]{40})\/([0-9a-f]{64})$/;

/**
 * Ethereum's state root (a Merkle-Patricia trie of accounts keyed by the Keccak of their address,
 * each with its storage trie) of the accounts a world state in the chain's layout holds: an account
 * exists when it has an account record (the chain drops one that holds nothing) or a contract record
 * (code, or storage); its OMC is the balance, its nonce the nonce.
 */
export async function ethereumStateRoot(state: StateEntries): Promise<string> {
  const accounts = new Map<string, AccountView>();
  const view = (hex40: string): AccountView => {
    let account = accounts.get(hex40);
    if (!account)
      accounts.set(hex40, (account = { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL, storage: new Map() }));
    return account;
  };
  for (const [key, value] of state) {
    let match = ACCOUNT.exec(key);
    if (match) {
      const account = decodeAccount(value);
      Object.assign(view(match[1]!), { nonce: BigInt(account.nonce), balance: account.omc });
      continue;
    }
    match = CONTRACT.exec(key);
    if (match) {
      view(match[1]!).codeHash = decodeContract(value)!.codeHash;
      continue;
    }
    match = STORAGE.exec(key);
    if (match) view(match[1]!).storage.set(match[2]!, value);
  }
  const world = await createMPT({ useKeyHashing: true });
  for (const [hex40, account] of accounts) {
    const storage = await createMPT({ useKeyHashing: true });
    for (const [slot, value] of account.storage) await storage.put(fromHex(`0x${slot}`), RLP.encode(value));
    const encoded = new EthAccount(account.nonce, account.balance, storage.root(), account.codeHash).serialize();
    await world.put(fromHex(`0x${hex40}`), encoded);
  }
  return toHex(world.root());
}

/** The logs' hash the vectors give: Keccak-256 of the RLP list of [address, topics, data]. */
export function logsHash(logs: readonly Log[]): string {
  return toHex(
    keccak_256(
      RLP.encode(
        logs.map((log) => [
          fromHex(hexOfAddress(log.address)),
          log.topics.map((topic) => fromHex(topic)),
          fromHex(log.data),
        ]),
      ),
    ),
  );
}
