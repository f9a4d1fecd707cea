import Type, { type Static } from 'typebox';
import type { Chain } from '../../../chain/chain.js';
import type { Block } from '../../../chain/schemas.js';
import { EthRpcError } from './errors.js';

/** A block parameter: a number, a tag, or an EIP-1898 object naming a block by number or hash. */
export const BlockParamSchema = Type.Union([
  Type.String({ pattern: '^(latest|pending|safe|finalized|earliest|0x[0-9a-fA-F]{1,16})$' }),
  Type.Object(
    {
      blockNumber: Type.Optional(
        Type.String({ pattern: '^(latest|pending|safe|finalized|earliest|0x[0-9a-fA-F]{1,16})$' }),
      ),
      blockHash: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
      requireCanonical: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
]);
export type BlockParam = Static<typeof BlockParamSchema>;

/**
 * The height a block parameter names; undefined for a block that does not exist (yet). Under
 * instant finality `latest`, `safe` and `finalized` are the head, and `pending` is too (a pending
 * block is not built until the validator's turn; what is pending shows in nonces and filters).
 */
export async function heightOf(
  chain: Pick<Chain, 'head' | 'getBlockByHash'>,
  param: BlockParam | undefined,
): Promise<number | undefined> {
  const tag = param ?? 'latest';
  if (typeof tag === 'object') {
    if (tag.blockHash !== undefined) return (await chain.getBlockByHash(tag.blockHash.toLowerCase()))?.height;
    return heightOf(chain, tag.blockNumber);
  }
  if (tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized') return chain.head.height;
  if (tag === 'earliest') return 0;
  const height = Number(BigInt(tag));
  return height <= chain.head.height ? height : undefined;
}

/** A block a state query names, or geth's "header not found" (-32000) for one that does not exist. */
export async function stateHeight(
  chain: Pick<Chain, 'head' | 'getBlockByHash'>,
  param: BlockParam | undefined,
): Promise<number> {
  const height = await heightOf(chain, param);
  if (height === undefined)
    throw new EthRpcError(
      -32000,
      typeof param === 'object' && param.blockHash ? `header for hash not found` : 'header not found',
    );
  return height;
}

export async function blockAt(
  chain: Pick<Chain, 'head' | 'getBlock' | 'getBlockByHash'>,
  height: number,
): Promise<Block | undefined> {
  return height === chain.head.height ? chain.head : chain.getBlock(height);
}
