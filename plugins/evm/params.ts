import { decode, encode } from '../../sdk/encoding.js';
import type { GenesisParameters } from '../../chain/contract.js';
import { BLOCK_GAS_LIMIT_KEY } from '../../chain/executor.js';
import { EVM_CHAIN_ID_KEY } from '../../chain/genesis.js';
import type { ReadState } from '../../chain/state/indexed.js';
import type { Address } from '../../sdk/address.js';

/** The devnet's EVM chain id: 0x737663, "svc" in ASCII. What `eth_chainId` answers and wallets sign for. */
export const DEVNET_EVM_CHAIN_ID = 0x737663;
/** Gas a devnet block may use in all. */
export const DEVNET_BLOCK_GAS_LIMIT = 12_000_000;
/** The devnet's base fee per gas, in OMC base units (1 gwei): a 1,000,000-gas deploy costs 0.001 OMC. */
export const DEVNET_BASE_FEE = 1_000_000_000n;

const BASE_FEE_KEY = 'params/evmBaseFee';
/** Absent unless dev mode set one (anvil_setCoinbase): who the EVM pays priority fees to instead of the proposer. */
const COINBASE_KEY = 'params/evmCoinbase';
/** The consensus parameters the EVM owns (`params/<name>`): its genesis sets them, dev mode's edits change them. */
export const EVM_PARAMS = ['blockGasLimit', 'evmBaseFee', 'evmCoinbase'] as const;

/** The EVM's consensus parameters, from block 0's state. */
export interface EvmParams {
  readonly chainId: number;
  /** A bigint: Ethereum's blocks may have gas limits past 2^53 (a genesis here sets a safe integer). */
  readonly blockGasLimit: bigint;
  /** Fixed: the base fee does not follow block fullness (a devnet's fees stay predictable); it is burned. */
  readonly baseFee: bigint;
  /** Set only by dev mode (anvil_setCoinbase): the block's coinbase in the EVM, instead of its proposer. */
  readonly coinbase?: Address;
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
  return decodeParams(read(EVM_CHAIN_ID_KEY), read(BLOCK_GAS_LIMIT_KEY), read(BASE_FEE_KEY), read(COINBASE_KEY));
}

function decodeParams(
  chainId: Uint8Array | undefined,
  gasLimit: Uint8Array | undefined,
  baseFee: Uint8Array | undefined,
  coinbase: Uint8Array | undefined,
): EvmParams {
  if (!chainId || !gasLimit || !baseFee)
    throw new Error('the EVM parameters are missing from the state: the genesis was made without the evm plugin');
  return {
    chainId: decode<number>(chainId),
    blockGasLimit: BigInt(decode<number | bigint>(gasLimit)),
    baseFee: BigInt(decode<string>(baseFee)),
    ...(coinbase ? { coinbase: decode<string>(coinbase) as Address } : {}),
  };
}

type AsyncRead = (key: string) => Uint8Array | undefined | Promise<Uint8Array | undefined>;

/** The parameters a state may change (dev mode's edits); the chain id is fixed at genesis. */
const STATE_PARAM_KEYS = [BLOCK_GAS_LIMIT_KEY, BASE_FEE_KEY, COINBASE_KEY];

/**
 * The EVM's parameters in a state, as a run reads them from the state it runs on (a block's, a past
 * block's for a call there), each one the state lacks (a test's bare state) the given defaults' — the
 * genesis's; decoded again only when a value's bytes changed.
 */
export class EvmParamsReader {
  private last: { readonly raw: readonly (Uint8Array | undefined)[]; readonly params: EvmParams } | undefined;

  constructor(private readonly defaults: EvmParams) {}

  async of(read: AsyncRead): Promise<EvmParams> {
    return this.decoded(await Promise.all(STATE_PARAM_KEYS.map(read)));
  }

  /** From a state read synchronously (the head's). */
  ofSync(read: ReadState): EvmParams {
    return this.decoded(STATE_PARAM_KEYS.map(read));
  }

  private decoded(raw: (Uint8Array | undefined)[]): EvmParams {
    if (this.last && raw.every((bytes, i) => bytes === this.last!.raw[i])) return this.last.params;
    const [gasLimit, baseFee, coinbase] = raw;
    const params: EvmParams = {
      chainId: this.defaults.chainId,
      blockGasLimit: gasLimit ? BigInt(decode<number | bigint>(gasLimit)) : this.defaults.blockGasLimit,
      baseFee: baseFee ? BigInt(decode<string>(baseFee)) : this.defaults.baseFee,
      ...(coinbase ? { coinbase: decode<string>(coinbase) as Address } : {}),
    };
    this.last = { raw, params };
    return params;
  }
}

/** Dev mode's change of the EVM's parameters, held in the EVM's state until the end of its block (`applyParamChange`). */
export interface EvmParamChange {
  readonly blockGasLimit?: string;
  readonly baseFee?: string;
  readonly coinbase?: string;
}

const PARAM_CHANGE_KEY = 'evm/param-change';

/** Records a change of the parameters, for the end of this block: the block's runs all see the same ones. */
export function stageParamChange(
  read: ReadState,
  write: (key: string, value: Uint8Array | undefined) => void,
  change: EvmParamChange,
): void {
  const pending = read(PARAM_CHANGE_KEY);
  write(PARAM_CHANGE_KEY, encode({ ...(pending ? decode<EvmParamChange>(pending) : {}), ...change }));
}

/** At the end of a block, the parameters a dev-mode edit changed in it take effect (from the next block). */
export function applyParamChange(read: ReadState, write: (key: string, value: Uint8Array | undefined) => void): void {
  const pending = read(PARAM_CHANGE_KEY);
  if (!pending) return;
  const change = decode<EvmParamChange>(pending);
  if (change.blockGasLimit !== undefined)
    write(BLOCK_GAS_LIMIT_KEY, encode(gasLimitValue(BigInt(change.blockGasLimit))));
  if (change.baseFee !== undefined) write(BASE_FEE_KEY, encode(change.baseFee));
  if (change.coinbase !== undefined) write(COINBASE_KEY, encode(change.coinbase));
  write(PARAM_CHANGE_KEY, undefined);
}

/** A gas limit as the state keeps it: a CBOR integer (a number where exact). */
const gasLimitValue = (limit: bigint): number | bigint =>
  limit <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(limit) : limit;
