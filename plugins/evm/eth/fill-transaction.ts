import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { ethereumTypeOf, refuseBlobs, type TypedFields } from './transaction-type.js';
import { toHex } from '../../../sdk/bytes.js';
import type { EvmService } from '../service.js';
import type { EthApi, EthCallObject } from './api.js';
import { ethereumError } from './errors.js';
import { qty } from './quantity.js';

/**
 * `eth_fillTransaction` (geth's): a call object completed with what a signer needs — the pending
 * nonce, gas by estimate, fees and type (chosen from the fields as Anvil does: ethereumTypeOf; a
 * 1559 cap defaults to the base fee plus the tip), the chain id — as the unsigned transaction's RLP and its fields. viem asks
 * for it before every send it prepares: one call where it would make four otherwise.
 */
export async function fillTransaction(
  eth: EthApi,
  evm: EvmService,
  call: EthCallObject,
): Promise<{ raw: string; tx: Record<string, unknown> }> {
  try {
    refuseBlobs(call);
    const nonce =
      call.nonce !== undefined
        ? BigInt(call.nonce)
        : call.from
          ? BigInt(await eth.transactionCount(call.from, 'pending'))
          : 0n;
    const gasLimit = call.gas !== undefined ? BigInt(call.gas) : BigInt(await eth.estimateGas(call, undefined));
    const common = evm.runner.txCommon;
    const fields = {
      nonce,
      gasLimit,
      to: (call.to ?? undefined) as `0x${string}` | undefined,
      value: BigInt(call.value ?? '0x0'),
      data: (call.data ?? call.input ?? '0x') as `0x${string}`,
    };
    const view: Record<string, unknown> = {
      chainId: qty(common.chainId()),
      nonce: qty(nonce),
      to: call.to ?? null,
      gas: qty(gasLimit),
      value: qty(fields.value),
      input: fields.data,
      v: '0x0',
      r: '0x0',
      s: '0x0',
    };
    if (call.from) view.from = call.from;
    const type = ethereumTypeOf(call as EthCallObject & TypedFields);
    const accessList = (call.accessList ?? []).map(({ address, storageKeys }) => ({
      address: address as `0x${string}`,
      storageKeys: storageKeys as `0x${string}`[],
    }));
    const gasPrice = call.gasPrice !== undefined ? BigInt(call.gasPrice) : evm.params.baseFee;
    if (type === 0) {
      const tx = createLegacyTx({ ...fields, gasPrice }, { common });
      return { raw: toHex(tx.serialize()), tx: { ...view, type: '0x0', gasPrice: qty(gasPrice) } };
    }
    if (type === 1) {
      const tx = createAccessList2930Tx({ ...fields, gasPrice, accessList, chainId: common.chainId() }, { common });
      return {
        raw: toHex(tx.serialize()),
        tx: { ...view, type: '0x1', gasPrice: qty(gasPrice), accessList, yParity: '0x0' },
      };
    }
    const tip = call.maxPriorityFeePerGas !== undefined ? BigInt(call.maxPriorityFeePerGas) : 0n;
    const cap = call.maxFeePerGas !== undefined ? BigInt(call.maxFeePerGas) : evm.params.baseFee + tip;
    const tx = createFeeMarket1559Tx(
      { ...fields, chainId: common.chainId(), maxFeePerGas: cap, maxPriorityFeePerGas: tip, accessList },
      { common },
    );
    return {
      raw: toHex(tx.serialize()),
      tx: { ...view, type: '0x2', maxFeePerGas: qty(cap), maxPriorityFeePerGas: qty(tip), accessList, yParity: '0x0' },
    };
  } catch (error) {
    throw ethereumError(error);
  }
}
