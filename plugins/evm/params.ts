import { decode, encode } from '../../sdk/encoding.js';
import type { GenesisParameters } from '../../chain/contract.js';
import { BLOCK_GAS_LIMIT_KEY } from '../../chain/executor.js';
import { EVM_CHAIN_ID_KEY } from '../../chain/genesis.js';
import type { ReadState } from '../../chain/state/indexed.js';

/** The devnet's EVM chain id: 0x737663, "svc" in ASCII. What `eth_chainId` answers and wallets sign for. */
export const DEVNET_EVM_CHAIN_ID = 0x737663;
/** Gas a devnet block may use in all. */
export const DEVNET_BLOCK_GAS_LIMIT = 12_000_000;
/** The devnet's base fee per gas, in OMC base units (1 gwei): a 1,000,000-gas deploy costs 0.001 OMC. */
export const DEVNET_BASE_FEE = 1_000_000_000n;

const BASE_FEE_KEY = 'params/evmBaseFee';

/** The EVM's consensus parameters, from block 0's state. */
export interface EvmParams {
  readonly chainId: number;
  /** A bigint: Ethereum's blocks may have gas limits past 2^53 (a genesis here sets a safe integer). */
  readonly blockGasLimit: bigint;
  /** Fixed: the base fee does not follow block fullness (a devnet's fees stay predictable); it is burned. */
  readonly baseFee: bigint;
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) <= 0)
    throw new Error(`genesis "${name}" must be a positive integer`);
  return value as number;
}

/** Genesis entries: from a genesis file's `evmChainId`, `blockGasLimit` and `evmBaseFee` (decimal base units), else the devnet's. */
export function evmGenesis({ params }: GenesisParameters): [string, Uint8Array][] {
  const chainId = positiveInteger(params.evmChainId, 'evmChainId', DEVNET_EVM_CHAIN_ID);
  const gasLimit = positiveInteger(params.blockGasLimit, 'blockGasLimit', DEVNET_BLOCK_GAS_LIMIT);
  const baseFee = params.evmBaseFee === undefined ? DEVNET_BASE_FEE : BigInt(String(params.evmBaseFee));
  if (baseFee < 0n) throw new Error('genesis "evmBaseFee" must not be negative');
  return [
    [EVM_CHAIN_ID_KEY, encode(chainId)],
    [BLOCK_GAS_LIMIT_KEY, encode(gasLimit)],
    [BASE_FEE_KEY, encode(baseFee.toString())],
  ];
}

export function readEvmParams(read: ReadState): EvmParams {
  const chainId = read(EVM_CHAIN_ID_KEY);
  const gasLimit = read(BLOCK_GAS_LIMIT_KEY);
  const baseFee = read(BASE_FEE_KEY);
  if (!chainId || !gasLimit || !baseFee)
    throw new Error('the EVM parameters are missing from the state: the genesis was made without the evm plugin');
  return {
    chainId: decode<number>(chainId),
    blockGasLimit: BigInt(decode<number | bigint>(gasLimit)),
    baseFee: BigInt(decode<string>(baseFee)),
  };
}
