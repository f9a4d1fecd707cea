import type { TypedTransaction } from '@ethereumjs/tx';
import { TxFailure } from '../../chain/contract.js';
import type { EvmParams } from './params.js';
import { MAX_TRANSACTION_GAS } from '../../sdk/transaction.js';

/** EIP-3860: the most init code a create may carry (twice EIP-170's 24,576 bytes of code). */
export const MAX_INITCODE_BYTES = 49_152;
/** EIP-7623's floor: what a transaction pays at least per calldata token. */
const FLOOR_PER_TOKEN = 10n;
const TX_BASE_GAS = 21_000n;

/** EIP-7623: calldata bytes as tokens (a zero byte one, any other four). */
function floorGas(data: Uint8Array): bigint {
  let tokens = 0n;
  for (const byte of data) tokens += byte === 0 ? 1n : 4n;
  return TX_BASE_GAS + tokens * FLOOR_PER_TOKEN;
}

/**
 * What makes an EVM transaction impossible to include, checked before it enters the mempool (the
 * rest — nonce, funds for gas × price + value — is the mempool's): its gas limit against the
 * intrinsic cost and the block gas limit, its fee cap against the base fee, init code size.
 */
export function checkAdmission(tx: TypedTransaction, params: EvmParams): void {
  if (tx.to === undefined && tx.data.length > MAX_INITCODE_BYTES) {
    throw new TxFailure(
      'code_too_large',
      `max initcode size exceeded: ${tx.data.length} bytes of init code, the limit is ${MAX_INITCODE_BYTES} (EIP-3860)`,
      { limit: MAX_INITCODE_BYTES },
    );
  }
  const intrinsic = tx.getIntrinsicGas();
  // The floor and the cap are rules of the fork the transaction is built for (Prague, Osaka), not of every chain.
  const floor = tx.common.isActivatedEIP(7623) ? floorGas(tx.data) : 0n;
  const needed = intrinsic > floor ? intrinsic : floor;
  if (tx.gasLimit < needed)
    throw new TxFailure('invalid_transaction', `intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${needed}`, {
      minimum: needed.toString(),
    });
  if (tx.gasLimit > params.blockGasLimit)
    throw new TxFailure(
      'invalid_transaction',
      `exceeds block gas limit: gas ${tx.gasLimit}, the block gas limit is ${params.blockGasLimit}`,
      { limit: params.blockGasLimit.toString() },
    );
  if (tx.common.isActivatedEIP(7825) && tx.gasLimit > BigInt(MAX_TRANSACTION_GAS))
    throw new TxFailure(
      'invalid_transaction',
      `gas limit too high: gas ${tx.gasLimit}, a transaction may have at most ${MAX_TRANSACTION_GAS} (EIP-7825)`,
      { limit: MAX_TRANSACTION_GAS },
    );
  const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice;
  if (feeCap < params.baseFee) {
    throw new TxFailure(
      'fee_too_low',
      `max fee per gas less than block base fee: maxFeePerGas ${feeCap}, baseFee ${params.baseFee}`,
      { baseFee: params.baseFee.toString() },
    );
  }
  if ('maxFeePerGas' in tx && tx.maxPriorityFeePerGas > tx.maxFeePerGas) {
    throw new TxFailure(
      'invalid_transaction',
      `max priority fee per gas higher than max fee per gas: ${tx.maxPriorityFeePerGas} > ${tx.maxFeePerGas}`,
    );
  }
}

/** A refusal of the payload at submission, in the words of the admission check. */
export function admitting(run: () => void): void {
  try {
    run();
  } catch (error) {
    if (error instanceof TxFailure) throw error;
    throw new TxFailure('invalid_transaction', (error as Error).message);
  }
}
