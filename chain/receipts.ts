import Type, { type Static } from 'typebox';
import { fromHex } from '../sdk/bytes.js';
import { encode } from '../sdk/encoding.js';
import { addressPattern } from '../sdk/address.js';
import type { Pacer } from './pacer.js';
import { merkleRootPaced } from './merkle.js';

export const ReceiptSchema = Type.Object(
  {
    transactionHash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
    blockNumber: Type.Integer({ minimum: 0 }),
    blockHash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
    index: Type.Integer({ minimum: 0, description: 'position in the block' }),
    from: Type.String({ pattern: addressPattern }),
    kind: Type.String(),
    status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
    error: Type.Optional(Type.Object({ name: Type.String(), reason: Type.String() })),
  },
  { additionalProperties: false },
);

export type Receipt = Static<typeof ReceiptSchema>;

/** A receipt before its block has a hash. */
export type PendingReceipt = Omit<Receipt, 'blockHash'>;

/** Consensus bytes of a receipt: CBOR [txHash, index, status(1 = success), errorName, errorReason]. */
export function encodeReceiptForRoot(receipt: PendingReceipt): Uint8Array {
  return encode([fromHex(receipt.transactionHash), receipt.index, receipt.status === 'success' ? 1 : 0, receipt.error?.name ?? '', receipt.error?.reason ?? '']);
}

export async function receiptRoot(receipts: readonly PendingReceipt[], pacer: Pacer): Promise<Uint8Array> {
  const leaves: Uint8Array[] = [];
  for (const receipt of receipts) {
    leaves.push(encodeReceiptForRoot(receipt));
    await pacer.step();
  }
  return merkleRootPaced(leaves, pacer);
}
