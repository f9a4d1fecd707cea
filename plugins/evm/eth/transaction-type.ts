import { EthRpcError } from './errors.js';

/** What of a call object decides the type of the transaction a node makes of it. */
export interface TypedFields {
  readonly type?: string;
  readonly gasPrice?: string;
  readonly maxFeePerGas?: string;
  readonly maxPriorityFeePerGas?: string;
  readonly accessList?: readonly unknown[];
}

/**
 * The Ethereum type of the transaction a node fills from a call object, as Anvil chooses it: the
 * `type` given; else EIP-1559 when a 1559 fee is given; else, with a gas price, EIP-2930 when an access
 * list comes with it and legacy when not; else EIP-1559.
 */
export function ethereumTypeOf(call: TypedFields): 0 | 1 | 2 {
  if (call.type !== undefined) {
    const type = Number(BigInt(call.type));
    if (type === 0 || type === 1 || type === 2) return type;
    throw new EthRpcError(
      -32602,
      `invalid params: transaction type ${call.type} is not one this chain takes (0 legacy, 1 EIP-2930, 2 EIP-1559)`,
    );
  }
  if (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined) return 2;
  if (call.gasPrice !== undefined) return call.accessList !== undefined ? 1 : 0;
  return 2;
}

/** A call object with blob fields: refused, as the chain takes no blobs. */
export function refuseBlobs(call: object): void {
  const fields = call as Record<string, unknown>;
  if (fields.maxFeePerBlobGas !== undefined || fields.blobVersionedHashes !== undefined || fields.blobs !== undefined)
    throw new EthRpcError(
      -32602,
      'invalid params: blob transactions (EIP-4844) are not taken: this chain carries no blobs; drop maxFeePerBlobGas and blobVersionedHashes',
    );
}
