import { mnemonicToAccount, type HDAccount } from 'viem/accounts';
import { createTxFromRLP } from '@ethereumjs/tx';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { hexOfAddress } from '../../sdk/address.js';
import { TEST_MNEMONIC_ACCOUNTS } from '../../chain/genesis.js';
import type { EvmPlugin } from '../evm/plugin-service.js';
import type { EthCallObject } from '../evm/eth/api.js';
import { fillTransaction } from '../evm/eth/fill-transaction.js';

/** Ethereum tooling's well-known test mnemonic: the devnet funds its first ten accounts (public keys). */
const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * Dev mode's unlocked accounts, as Anvil's and Hardhat's: the ten test-mnemonic accounts the devnet
 * funds, whose keys everyone knows. `eth_accounts` lists them and `eth_sendTransaction` from one signs
 * a real transaction with its key (so its hash, type and receipt are a signed one's), sent as
 * `eth_sendRawTransaction` would send it. Keys are derived on first use.
 */
export class UnlockedAccounts {
  private keys: Map<string, Uint8Array> | undefined;
  private readonly accounts = new Map<string, HDAccount>();

  /** The accounts, lowercase 0x, in the mnemonic's order. */
  get addresses(): string[] {
    return TEST_MNEMONIC_ACCOUNTS.map((address) => hexOfAddress(address));
  }

  has(address: string): boolean {
    return this.addresses.includes(address.toLowerCase());
  }

  private keyOf(address: string): Uint8Array {
    this.keys ??= new Map(
      TEST_MNEMONIC_ACCOUNTS.map((_, index) => {
        const account = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index });
        return [account.address.toLowerCase(), account.getHdKey().privateKey!] as const;
      }),
    );
    const key = this.keys.get(address.toLowerCase());
    if (!key) throw new Error(`${address} is not an unlocked account`);
    return key;
  }

  /** The account as viem signs with it: messages (EIP-191) and typed data (EIP-712). */
  signer(address: string): HDAccount {
    const lower = address.toLowerCase();
    const index = this.addresses.indexOf(lower);
    if (index < 0) throw new Error(`${address} is not an unlocked account`);
    let account = this.accounts.get(lower);
    if (!account) {
      account = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index });
      this.accounts.set(lower, account);
    }
    return account;
  }

  /** Fills `call` as eth_fillTransaction does, signs it with `from`'s key and submits it; its hash. */
  async send(evm: EvmPlugin, call: EthCallObject & { from: string }): Promise<string> {
    const { raw } = await fillTransaction(evm.eth, evm.rules, call);
    const signed = createTxFromRLP(fromHex(raw), { common: evm.rules.runner.txCommon }).sign(this.keyOf(call.from));
    return evm.eth.sendRaw(toHex(signed.serialize()));
  }
}
