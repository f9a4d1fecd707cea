import Type from 'typebox';
import { param, type MethodFactory, type RpcMethod } from '../../kernel/plugin.js';
import { DataSchema, EthAddressSchema } from '../evm/eth/quantity.js';
import { EthRpcError } from '../evm/eth/errors.js';
import type { DevControls } from './index.js';

const Signature = Type.String({ pattern: '^0x[0-9a-f]{130}$', description: 'r ‖ s ‖ v, 65 bytes' });
const TypedData = Type.Union(
  [
    Type.String({ description: 'the typed data as JSON text' }),
    Type.Object(
      {
        types: Type.Record(Type.String(), Type.Array(Type.Object({ name: Type.String(), type: Type.String() }))),
        primaryType: Type.String(),
        domain: Type.Record(Type.String(), Type.Unknown()),
        message: Type.Record(Type.String(), Type.Unknown()),
      },
      { additionalProperties: true },
    ),
  ],
  { description: 'EIP-712 typed data: { types, primaryType, domain, message }' },
);

type TypedDataObject = Parameters<ReturnType<DevControls['signer']>['signTypedData']>[0];

function typedDataOf(value: unknown): TypedDataObject {
  if (typeof value !== 'string') return value as TypedDataObject;
  try {
    return JSON.parse(value) as TypedDataObject;
  } catch (error) {
    throw new EthRpcError(-32602, `invalid params: typed data is not JSON: ${(error as Error).message}`);
  }
}

/** Viem's typed-data errors (a type it cannot find, a value of the wrong shape) are the caller's. */
async function signing(work: () => Promise<`0x${string}`>): Promise<`0x${string}`> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EthRpcError) throw error;
    throw new EthRpcError(-32602, `invalid params: ${(error as Error).message.split('\n')[0]}`);
  }
}

/**
 * Signing with the unlocked test-mnemonic accounts in dev mode, as Anvil and Hardhat sign with theirs:
 * `eth_sign` and `personal_sign` (EIP-191: the "Ethereum Signed Message" prefix, geth's meaning of
 * both) and `eth_signTypedData_v4` (EIP-712). Any other account is geth's "unknown account".
 */
export function signingMethods(method: MethodFactory<DevControls>): RpcMethod[] {
  return [
    method({
      name: 'eth_sign',
      summary: 'Signs data with an unlocked dev account (EIP-191 personal message, as geth); dev mode only.',
      params: [param('address', EthAddressSchema), param('data', DataSchema)],
      result: Signature,
      errors: ['dev_mode_off'],
      handler: ([address, data], { service }) =>
        signing(() => service.signer(address).signMessage({ message: { raw: data as `0x${string}` } })),
    }),
    method({
      name: 'personal_sign',
      summary: 'eth_sign with its parameters the other way round (data, then address); dev mode only.',
      params: [param('data', DataSchema), param('address', EthAddressSchema)],
      result: Signature,
      errors: ['dev_mode_off'],
      handler: ([data, address], { service }) =>
        signing(() => service.signer(address).signMessage({ message: { raw: data as `0x${string}` } })),
    }),
    method({
      name: 'eth_signTypedData_v4',
      summary: 'Signs EIP-712 typed data with an unlocked dev account; dev mode only.',
      params: [param('address', EthAddressSchema), param('typedData', TypedData)],
      result: Signature,
      errors: ['dev_mode_off'],
      handler: ([address, typed], { service }) => {
        const signer = service.signer(address);
        return signing(() => signer.signTypedData(typedDataOf(typed)));
      },
    }),
  ];
}
