import Type, { type Static } from 'typebox';
import { addressPattern } from '../../sdk/address.js';

export const HashSchema = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: '32-byte hash, 0x hex (lowercase in results)' });
export const AddressSchema = Type.String({ pattern: addressPattern, 'x-error': 'invalid_address', description: 'svc1 + 40 hex characters' });

export const BlockSchema = Type.Object(
  {
    height: Type.Integer({ minimum: 0 }),
    hash: HashSchema,
    parentHash: HashSchema,
    timestamp: Type.Integer({ description: 'unix milliseconds' }),
    chainId: Type.String(),
    proposer: Type.String({ pattern: addressPattern }),
    proposerKey: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
    txRoot: HashSchema,
    stateRoot: HashSchema,
    receiptRoot: HashSchema,
    signature: Type.String({ pattern: '^0x([0-9a-f]{128})?$', description: 'proposer Ed25519 signature of the hash; empty (0x) for block 0' }),
    transactions: Type.Array(Type.String(), { description: 'transaction hashes' }),
  },
  { additionalProperties: false, $id: 'Block' },
);

export type Block = Static<typeof BlockSchema>;

export const BlockTagSchema = Type.Union([Type.Integer({ minimum: 0 }), Type.Literal('latest')], { description: 'a height, or "latest"' });
