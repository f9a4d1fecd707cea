import Type, { type Static, type TLiteral, type TUnion } from 'typebox';
import { addressPattern, canonicalAddressPattern } from '../sdk/address.js';
import { unitsPattern } from '../sdk/amount.js';

/**
 * One of `values`, each as a `const` of an `anyOf` (how the RPC reference lists allowed values), typed
 * as their union: built from an array, `Type.Union` alone would type it as nothing.
 */
export function literalUnion<V extends string>(values: readonly V[]): TUnion<[TLiteral<V>]> {
  return Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<[TLiteral<V>]>;
}

/** One or more distinct `values` (a provider's runtimes, its media formats). */
export function distinctValues<V extends string>(values: readonly V[], noun: string) {
  return Type.Array(literalUnion(values), {
    minItems: 1,
    uniqueItems: true,
    description: `distinct ${noun}: ${values.join(', ')}`,
  });
}

/** A signed transaction as clients send it (up to 512 KiB: a job's inline module travels in one). */
export const RawTransactionSchema = Type.String({
  pattern: '^0x([0-9a-fA-F]{2})+$',
  maxLength: 1_048_578,
  description: "a signed transaction, 0x hex: its CBOR encoding, or an Ethereum transaction's RLP",
});
export const HashSchema = Type.String({
  pattern: '^0x[0-9a-fA-F]{64}$',
  description: '32-byte hash, 0x hex (lowercase in results)',
});
export const AddressSchema = Type.String({
  pattern: addressPattern,
  'x-error': 'invalid_address',
  description: 'svc1 + 40 hex characters',
});
const ResultHash = Type.String({ pattern: '^0x[0-9a-f]{64}$' });
export const ResultAddress = Type.String({ pattern: canonicalAddressPattern });
export const UnitsSchema = Type.String({
  pattern: unitsPattern,
  description: 'base units (10^-18 token) as a decimal integer string',
});
const PositiveUnits = Type.String({
  pattern: '^[1-9][0-9]{0,77}$',
  description: 'a positive amount of base units as a decimal integer string',
});

/** Precommits of more than 2/3 of the voting power for a block: its proof of finality. */
export const CommitCertificateSchema = Type.Object(
  {
    height: Type.Integer({ minimum: 1 }),
    round: Type.Integer({ minimum: 0 }),
    blockHash: ResultHash,
    signatures: Type.Array(
      Type.Object(
        {
          validator: ResultAddress,
          signature: Type.String({
            pattern: '^0x[0-9a-f]{128}$',
            description: "the validator's consensus-key Ed25519 signature of its precommit",
          }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  {
    additionalProperties: false,
    description: 'precommits of more than 2/3 of the voting power for the block at that height and round',
  },
);

export const BlockSchema = Type.Object(
  {
    height: Type.Integer({ minimum: 0 }),
    hash: ResultHash,
    parentHash: ResultHash,
    timestamp: Type.Integer({ description: 'unix milliseconds' }),
    chainId: Type.String(),
    proposer: ResultAddress,
    proposerKey: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
    txRoot: ResultHash,
    stateRoot: ResultHash,
    receiptRoot: ResultHash,
    signature: Type.String({
      pattern: '^0x([0-9a-f]{128})?$',
      description: 'proposer Ed25519 signature of the hash; empty (0x) for block 0',
    }),
    lastCommit: Type.Union([CommitCertificateSchema, Type.Null()], {
      description: "the parent block's commit certificate (null in blocks 0 and 1); covered by the hash",
    }),
    transactions: Type.Array(ResultHash, { description: 'transaction hashes, in execution order' }),
    systemTransactions: Type.Optional(
      Type.Array(ResultHash, {
        description:
          "the chain's own transactions, after the user ones: calls the chain made to contracts at the block's end (a compute job's callback), each with a receipt; absent when none",
      }),
    ),
  },
  { additionalProperties: false },
);

export type Block = Static<typeof BlockSchema>;

export const BlockTagSchema = Type.Union(
  [Type.Integer({ minimum: 0 }), Type.Literal('latest'), Type.Literal('finalized'), Type.Literal('earliest')],
  {
    description:
      'a height, "latest" (the head), "finalized" (the same block: a committed block is final) or "earliest" (block 0)',
  },
);

export const BalanceSchema = Type.Object(
  {
    address: ResultAddress,
    blockNumber: Type.Integer({ minimum: 0, description: 'the block whose state this is' }),
    omc: UnitsSchema,
    ogt: UnitsSchema,
    bonded: Type.Record(Type.String(), UnitsSchema, {
      description: 'OGT bonded per purpose (compute, storage), base units; not part of `ogt`',
    }),
  },
  { additionalProperties: false },
);

export const TransferPayloadSchema = Type.Object(
  {
    to: AddressSchema,
    asset: Type.Union([Type.Literal('OMC'), Type.Literal('OGT')]),
    amount: PositiveUnits,
  },
  { additionalProperties: false },
);

export const TransactionSchema = Type.Object(
  {
    hash: ResultHash,
    from: ResultAddress,
    chainId: Type.String(),
    kind: Type.String(),
    nonce: Type.Integer({ minimum: 0 }),
    publicKey: Type.String({
      pattern: '^0x([0-9a-f]{64}|[0-9a-f]{128})?$',
      description:
        "Ed25519 (32 bytes), or an Ethereum transaction's recovered secp256k1 key (64 bytes, uncompressed); empty (0x) for a system transaction",
    }),
    signature: Type.String({
      pattern: '^0x([0-9a-f]{128}|[0-9a-f]{130,146})?$',
      description: "Ed25519 (64 bytes), or an Ethereum transaction's r ‖ s ‖ v; empty (0x) for a system transaction",
    }),
    payload: Type.Record(Type.String(), Type.Unknown()),
    status: Type.Union([Type.Literal('pending'), Type.Literal('mined')]),
    blockNumber: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    index: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    outcome: Type.Optional(
      Type.Union([Type.Literal('success'), Type.Literal('failed')], {
        description:
          "a mined transaction's receipt status (svc_listTransactions; absent where its receipt is outside the history window)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChainInfoSchema = Type.Object(
  {
    network: Type.String(),
    chainId: Type.String(),
    rulesVersion: Type.Integer({
      minimum: 1,
      description: "the chain-rules version the next block runs under (from the network's schedule)",
    }),
    rulesSchedule: Type.Array(
      Type.Object(
        { version: Type.Integer({ minimum: 1 }), height: Type.Integer({ minimum: 0 }) },
        { additionalProperties: false },
      ),
      {
        description:
          "the network's rules versions, each with the first block it runs: the genesis version from block 0, then each adopted upgrade",
      },
    ),
    knownRulesVersions: Type.Array(Type.Integer({ minimum: 1 }), {
      description: "the chain-rules versions this node's release implements: it stops before a block of any other",
    }),
    genesisHash: ResultHash,
    validator: ResultAddress,
    head: Type.Object(
      { height: Type.Integer({ minimum: 0 }), hash: ResultHash, timestamp: Type.Integer() },
      { additionalProperties: false },
    ),
    archive: Type.Boolean({ description: 'keeps all history (receipt archive)' }),
    historyBlocks: Type.Integer({ description: 'blocks of history kept without archive' }),
    oldestStateBlock: Type.Integer({ minimum: 0, description: 'oldest block whose state is answered' }),
    pendingTransactions: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
