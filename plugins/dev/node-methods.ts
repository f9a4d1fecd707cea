import Type from 'typebox';
import { param, type MethodFactory, type RpcMethod } from '../../kernel/plugin.js';
import { QuantitySchema } from '../evm/eth/quantity.js';
import { EthRpcError } from '../evm/eth/errors.js';
import type { DevControls } from './index.js';

/** Anvil's methods about the dev node itself (with Hardhat's names, which Anvil serves too). */
export function nodeMethods(method: MethodFactory<DevControls>): RpcMethod[] {
  return [
    method({
      name: 'anvil_metadata',
      summary:
        "The client, the EVM chain id, this run's instance id (new at each start and anvil_reset), the head and the snapshots (id → [height, hash]), in Anvil's shape.",
      params: [],
      result: Type.Object({}, { additionalProperties: true }),
      errors: ['dev_mode_off'],
      handler: (_params, { service }) => service.metadata(),
    }),
    method({
      name: 'anvil_setLoggingEnabled',
      summary: "Turns the node's printing of contracts' console.log lines off (false) or on (true, as at start).",
      params: [param('enabled', Type.Boolean())],
      result: Type.Null(),
      errors: ['dev_mode_off'],
      handler: ([enabled], { service }) => {
        service.setLogging(enabled);
        return null;
      },
    }),
    method({
      name: 'anvil_setMinGasPrice',
      summary:
        'Refused as Anvil refuses it on a chain with EIP-1559: the least a transaction pays is the base fee (anvil_setNextBlockBaseFeePerGas sets it).',
      params: [param('gasPrice', QuantitySchema)],
      result: Type.Null(),
      errors: ['dev_mode_off'],
      handler: (_params, { service }) => {
        service.miner();
        throw new EthRpcError(-32602, 'anvil_setMinGasPrice is not supported when EIP-1559 is active');
      },
    }),
  ];
}
