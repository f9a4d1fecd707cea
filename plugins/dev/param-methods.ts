import Type from 'typebox';
import { param, type MethodFactory, type RpcMethod } from '../../kernel/plugin.js';
import { EthAddressSchema, QuantitySchema } from '../evm/eth/quantity.js';
import { DEV_PARAMS_KIND, type DevParams } from '../evm/dev-edits.js';
import { EthRpcError } from '../evm/eth/errors.js';
import type { DevControls } from './index.js';

/** Most a block gas limit may be set to: a 64-bit gas count. */
const MAX_GAS_LIMIT = 2n ** 64n - 1n;

/**
 * Anvil's methods that change a block's parameters in dev mode: each a dev-mode transaction of the
 * EVM's `evm.devParams` kind, mined before the method answers, in force from the next block (the
 * block after the answer, as on Anvil). The base fee then stays where it is set: this chain's base
 * fee does not follow block fullness.
 */
export function paramMethods(method: MethodFactory<DevControls>): RpcMethod[] {
  const set = async (service: DevControls, change: DevParams): Promise<void> => {
    await service.submitDev(DEV_PARAMS_KIND, [change]);
  };
  const gasLimit = (value: string): string => {
    const limit = BigInt(value);
    if (limit === 0n || limit > MAX_GAS_LIMIT)
      throw new EthRpcError(-32602, `invalid params: a block gas limit must be between 1 and 2^64 − 1; got ${limit}`);
    return limit.toString();
  };
  return [
    method({
      name: 'anvil_setBlockGasLimit',
      summary: 'Sets the block gas limit from the next block (dev mode): the most gas a block holds, and GASLIMIT.',
      params: [param('gasLimit', QuantitySchema)],
      result: Type.Boolean(),
      errors: ['dev_mode_off'],
      handler: async ([limit], { service }) => {
        await set(service, { blockGasLimit: gasLimit(limit) });
        return true;
      },
    }),
    method({
      name: 'evm_setBlockGasLimit',
      summary: "Hardhat's and Anvil's other name of anvil_setBlockGasLimit.",
      params: [param('gasLimit', QuantitySchema)],
      result: Type.Boolean(),
      errors: ['dev_mode_off'],
      handler: async ([limit], { service }) => {
        await set(service, { blockGasLimit: gasLimit(limit) });
        return true;
      },
    }),
    method({
      name: 'anvil_setNextBlockBaseFeePerGas',
      summary:
        'Sets the base fee per gas from the next block (dev mode); it stays there (this chain does not move its base fee with block fullness).',
      params: [param('baseFee', QuantitySchema)],
      result: Type.Null(),
      errors: ['dev_mode_off'],
      handler: async ([fee], { service }) => {
        await set(service, { baseFee: BigInt(fee).toString() });
        return null;
      },
    }),
    method({
      name: 'anvil_setCoinbase',
      summary:
        "Sets the EVM's coinbase from the next block (dev mode): COINBASE reads it and priority fees go to it, instead of the block's proposer.",
      params: [param('address', EthAddressSchema)],
      result: Type.Null(),
      errors: ['dev_mode_off'],
      handler: async ([address], { service }) => {
        await set(service, { coinbase: address.toLowerCase() });
        return null;
      },
    }),
  ];
}
