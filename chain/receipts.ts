import Type, { type Static } from 'typebox';
import { fromHex } from '../sdk/bytes.js';
import { encode } from '../sdk/encoding.js';
import { addressPattern } from '../sdk/address.js';
import type { Pacer } from './pacer.js';
import { merkleRootPaced } from './merkle.js';

const HexData = Type.String({ pattern: '^0x([0-9a-f]{2})*$' });

/** An EVM log: the emitting contract, up to four topics, and its data. */
export const LogSchema = Type.Object(
  {
    address: Type.String({ pattern: addressPattern, description: 'the contract that emitted it' }),
    topics: Type.Array(Type.String({ pattern: '^0x[0-9a-f]{64}$' }), { maxItems: 4 }),
    data: HexData,
  },
  { additionalProperties: false },
);

export type Log = Static<typeof LogSchema>;

/** What a transaction kind that uses gas adds to its receipt (the EVM's kinds). */
const ReceiptDetailsFields = {
  gasUsed: Type.Optional(Type.Integer({ minimum: 0, description: 'gas this transaction used' })),
  cumulativeGasUsed: Type.Optional(
    Type.Integer({ minimum: 0, description: 'gas used in the block up to and including this transaction' }),
  ),
  effectiveGasPrice: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'OMC base units paid per gas' })),
  contractAddress: Type.Optional(Type.String({ pattern: addressPattern, description: 'the contract a create made' })),
  logs: Type.Optional(Type.Array(LogSchema)),
  revert: Type.Optional(
    Type.String({ pattern: '^0x([0-9a-f]{2})*$', description: 'the revert data of a reverted call' }),
  ),
};

const ReceiptDetailsSchema = Type.Object(ReceiptDetailsFields);

/** What a kind reports in its outcome (the chain adds `cumulativeGasUsed`). */
export type ReceiptDetails = Omit<Static<typeof ReceiptDetailsSchema>, 'cumulativeGasUsed'>;

export const ReceiptSchema = Type.Object(
  {
    ...ReceiptDetailsFields,
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

/**
 * Consensus bytes of a receipt: CBOR [txHash, index, status(1 = success), errorName, errorReason],
 * and for a transaction that used gas a sixth element [gasUsed, cumulativeGasUsed,
 * effectiveGasPrice, contractAddress or "", [[address, [topics], data], ...], revert bytes (empty: none)].
 */
export function encodeReceiptForRoot(receipt: PendingReceipt): Uint8Array {
  const core: unknown[] = [
    fromHex(receipt.transactionHash),
    receipt.index,
    receipt.status === 'success' ? 1 : 0,
    receipt.error?.name ?? '',
    receipt.error?.reason ?? '',
  ];
  if (receipt.gasUsed !== undefined) {
    const logs = (receipt.logs ?? []).map((log) => [
      log.address,
      log.topics.map((topic) => fromHex(topic)),
      fromHex(log.data),
    ]);
    core.push([
      receipt.gasUsed,
      receipt.cumulativeGasUsed ?? 0,
      receipt.effectiveGasPrice ?? '0',
      receipt.contractAddress ?? '',
      logs,
      fromHex(receipt.revert ?? '0x'),
    ]);
  }
  return encode(core);
}

export async function receiptRoot(receipts: readonly PendingReceipt[], pacer: Pacer): Promise<Uint8Array> {
  const leaves: Uint8Array[] = [];
  for (const receipt of receipts) {
    leaves.push(encodeReceiptForRoot(receipt));
    const pause = pacer.step();
    if (pause) await pause;
  }
  return merkleRootPaced(leaves, pacer);
}
