import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { decode, encode } from '../sdk/encoding.js';
import { BlockSchema, CommitCertificateSchema, type Block } from '../chain/schemas.js';
import type { CommitCertificate } from '../sdk/block.js';

/**
 * What peers say to each other, all CBOR (docs/p2p.md):
 * - status protocol: request empty; response `{ chainId, rulesVersion, genesis, height, hash }`.
 * - blocks protocol: request `{ from, count }`; response one length-prefixed message per block,
 *   each `[block, rawTransactions, commitCertificate]`, then the stream closes.
 * - gossip `blocks` topic: `[block, rawTransactions, commitCertificate]`, or `[block, null,
 *   commitCertificate]` when the block is too big to gossip (peers then fetch it with the blocks
 *   protocol). Only committed blocks travel there, each with the precommits that made it final.
 * - gossip `transactions` topic: an array of raw signed transactions (1 to MAX_GOSSIP_TX_BATCH), the
 *   ones a node admitted from its own clients within a few milliseconds.
 * - pending protocol: the dialling side sends its pending transactions, one raw transaction per
 *   length-prefixed message, and closes; no response (re-announcement that gossip can't repeat).
 */
export const STATUS_PROTOCOL = '/svc/status/1.0.0';
export const BLOCKS_PROTOCOL = '/svc/blocks/2.0.0';
export const PENDING_PROTOCOL = '/svc/pending/1.0.0';

/** Most transactions one pending push carries, and the largest raw transaction it may hold. */
export const MAX_PENDING_PUSH = 5_000;
export const MAX_PENDING_TX_BYTES = 1024 * 1024;

/** Most transactions one gossiped batch holds, and about the most bytes (a batch closes when it passes them). */
export const MAX_GOSSIP_TX_BATCH = 512;
export const GOSSIP_TX_BATCH_BYTES = 512 * 1024;

/** Most blocks one range request may ask for. */
export const MAX_RANGE = 64;
/** Largest single message on the request/response protocols (a block with its transactions). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Blocks bigger than this travel by range request, not gossip. */
export const MAX_GOSSIP_BLOCK_BYTES = 900 * 1024;

/** Gossip topics are per chain and genesis, so nodes of other networks never share a mesh. */
export function topics(chainId: string, genesisHash: string): { blocks: string; transactions: string } {
  return {
    blocks: topicName(chainId, genesisHash, 'blocks/2'),
    transactions: topicName(chainId, genesisHash, 'transactions/2'),
  };
}

/** A gossip topic of this chain and genesis: `/svc/<chain id>/<genesis hash prefix>/<name>`. */
export const topicName = (chainId: string, genesisHash: string, name: string): string =>
  `/svc/${chainId}/${genesisHash.slice(2, 18)}/${name}`;

export class WireError extends Error {
  override name = 'WireError';
}

const StatusSchema = Type.Object(
  {
    chainId: Type.String({ maxLength: 128 }),
    rulesVersion: Type.Integer({ minimum: 1 }),
    genesis: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
    height: Type.Integer({ minimum: 0 }),
    hash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
  },
  { additionalProperties: false },
);
export interface Status {
  readonly chainId: string;
  /** The chain-rules version the node runs: a peer of another is refused before anything else is compared. */
  readonly rulesVersion: number;
  readonly genesis: string;
  readonly height: number;
  readonly hash: string;
}
const RangeSchema = Type.Object(
  { from: Type.Integer({ minimum: 0 }), count: Type.Integer({ minimum: 1, maximum: MAX_RANGE }) },
  { additionalProperties: false },
);
export interface RangeRequest {
  readonly from: number;
  readonly count: number;
}

const checkStatus = Compile(StatusSchema);
const checkRange = Compile(RangeSchema);
const checkBlock = Compile(BlockSchema);
const checkCommit = Compile(CommitCertificateSchema);

/**
 * A block with the raw transactions it lists (or without them, when they must be fetched) and the
 * certificate that makes it final (none for a proposal, which is not final yet).
 */
export interface BlockBundle {
  readonly block: Block;
  readonly raws: readonly Uint8Array[] | null;
  readonly commit: CommitCertificate | null;
}

function decodeOrThrow(bytes: Uint8Array, what: string): unknown {
  try {
    return decode<unknown>(bytes);
  } catch (error) {
    throw new WireError(`${what} is not CBOR: ${(error as Error).message}`);
  }
}

export const encodeStatus = (status: Status): Uint8Array => encode(status);
export function decodeStatus(bytes: Uint8Array): Status {
  const value = decodeOrThrow(bytes, 'status');
  if (!checkStatus.Check(value)) throw new WireError('status has the wrong shape');
  return value;
}

export const encodeRange = (request: RangeRequest): Uint8Array => encode(request);
export function decodeRange(bytes: Uint8Array): RangeRequest {
  const value = decodeOrThrow(bytes, 'range request');
  if (!checkRange.Check(value)) throw new WireError(`range request has the wrong shape (count 1..${MAX_RANGE})`);
  return value;
}

export const encodeBundle = (bundle: BlockBundle): Uint8Array => encode([bundle.block, bundle.raws, bundle.commit]);
export function decodeBundle(bytes: Uint8Array): BlockBundle {
  const value = decodeOrThrow(bytes, 'block');
  if (!Array.isArray(value) || value.length !== 3)
    throw new WireError('block message must be [block, rawTransactions, commitCertificate]');
  const [block, raws, commit] = value as [unknown, unknown, unknown];
  if (!checkBlock.Check(block)) throw new WireError('block has the wrong shape');
  if (commit !== null && !checkCommit.Check(commit)) throw new WireError('commit certificate has the wrong shape');
  if (raws !== null && (!Array.isArray(raws) || !raws.every((raw) => raw instanceof Uint8Array)))
    throw new WireError('block transactions must be byte strings');
  if (raws !== null && raws.length !== block.transactions.length)
    throw new WireError('block carries a different number of transactions than it lists');
  return { block, raws, commit: commit as CommitCertificate | null };
}

/**
 * A committed block as gossiped: `[height, bundle bytes]`. Validators commit a block by consensus
 * before its proposer's gossip of it arrives; the height up front lets them ignore it without
 * decoding a block of thousands of transactions they already hold.
 */
export const encodeGossipBlock = (bundle: BlockBundle): Uint8Array =>
  encode([bundle.block.height, encodeBundle(bundle)]);
export function peekGossipBlock(bytes: Uint8Array): { readonly height: number; readonly bundle: Uint8Array } {
  const value = decodeOrThrow(bytes, 'gossiped block');
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !Number.isSafeInteger(value[0]) ||
    (value[0] as number) < 1 ||
    !(value[1] instanceof Uint8Array)
  )
    throw new WireError('a gossiped block is [height, block message]');
  return { height: value[0] as number, bundle: value[1] };
}

export const encodeTransactionBatch = (raws: readonly Uint8Array[]): Uint8Array => encode(raws);
export function decodeTransactionBatch(bytes: Uint8Array): Uint8Array[] {
  const value = decodeOrThrow(bytes, 'transaction batch');
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_GOSSIP_TX_BATCH)
    throw new WireError(`a transaction batch is an array of 1 to ${MAX_GOSSIP_TX_BATCH} raw transactions`);
  if (!value.every((raw) => raw instanceof Uint8Array)) throw new WireError('a transaction batch holds byte strings');
  return value as Uint8Array[];
}
