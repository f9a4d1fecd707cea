import { addressFromPublicKey, type Address } from './address.js';
import { fromHex, toHex, type Hex } from './bytes.js';
import { encode } from './encoding.js';
import { hash } from './hash.js';
import { signWith, verify, type KeyPair } from './keys.js';

/** What a proposer signs. Hashes and keys are `0x` hex on the wire and raw bytes in the encoding. */
export interface BlockHeader {
  chainId: string;
  height: number;
  parentHash: Hex;
  /** Unix milliseconds. */
  timestamp: number;
  proposer: Address;
  proposerKey: Hex;
  txRoot: Hex;
  stateRoot: Hex;
  receiptRoot: Hex;
  /** The commit certificate of the parent block (null in blocks 0 and 1): the chain carries each block's finality proof in the next. */
  lastCommit: CommitCertificate | null;
}

/**
 * Precommits of more than 2/3 of the voting power for one block at one round: the proof that the
 * block is final. Each signature is the validator's consensus-key signature of its precommit vote.
 */
export interface CommitCertificate {
  height: number;
  round: number;
  blockHash: string;
  signatures: { validator: string; signature: string }[];
}

export interface SignedBlockHeader extends BlockHeader {
  hash: Hex;
  signature: Hex;
}

const HEADER_VERSION = 2;

/** A certificate in the header's bytes: `[height, round, blockHash, [[validator(20 bytes), signature], ...]]`. */
const encodeCertificate = (c: CommitCertificate): unknown[] => [
  c.height,
  c.round,
  fromHex(c.blockHash),
  c.signatures.map((s) => [fromHex(s.validator.slice(4)), fromHex(s.signature)]),
];

/**
 * The header's signing bytes: a CBOR array in fixed field order, so no map-key rule is involved.
 * [version, chainId, height, parentHash, timestamp, proposer(20 bytes), proposerKey, txRoot, stateRoot, receiptRoot, lastCommit | null]
 */
export function encodeHeader(header: BlockHeader): Uint8Array {
  return encode([
    HEADER_VERSION,
    header.chainId,
    header.height,
    fromHex(header.parentHash),
    header.timestamp,
    fromHex(header.proposer.slice(4)),
    fromHex(header.proposerKey),
    fromHex(header.txRoot),
    fromHex(header.stateRoot),
    fromHex(header.receiptRoot),
    header.lastCommit === null ? null : encodeCertificate(header.lastCommit),
  ]);
}

export function headerHash(header: BlockHeader): Hex {
  return toHex(hash(encodeHeader(header)));
}

export function signHeader(header: BlockHeader, key: KeyPair): SignedBlockHeader {
  const digest = headerHash(header);
  return { ...header, hash: digest, signature: toHex(signWith(key, fromHex(digest))) };
}

/** Checks the hash, that the proposer address belongs to the key, and the signature. Returns a reason when invalid. */
export function checkSignedHeader(header: SignedBlockHeader, verifySignature = verify): string | undefined {
  const digest = headerHash(header);
  if (digest !== header.hash) return 'header hash does not match its contents';
  if (addressFromPublicKey(fromHex(header.proposerKey)) !== header.proposer)
    return 'proposer address does not match the proposer key';
  if (!verifySignature(fromHex(header.signature), fromHex(digest), fromHex(header.proposerKey)))
    return 'bad proposer signature';
  return undefined;
}
