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
}

export interface SignedBlockHeader extends BlockHeader {
  hash: Hex;
  signature: Hex;
}

const HEADER_VERSION = 1;

/**
 * The header's signing bytes: a CBOR array in fixed field order, so no map-key rule is involved.
 * [version, chainId, height, parentHash, timestamp, proposer(20 bytes), proposerKey, txRoot, stateRoot, receiptRoot]
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
  if (addressFromPublicKey(fromHex(header.proposerKey)) !== header.proposer) return 'proposer address does not match the proposer key';
  if (!verifySignature(fromHex(header.signature), fromHex(digest), fromHex(header.proposerKey))) return 'bad proposer signature';
  return undefined;
}
