import { sha256 } from '@noble/hashes/sha2.js';
import * as dagPb from '@ipld/dag-pb';
import { UnixFS } from 'ipfs-unixfs';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { create as digest } from 'multiformats/hashes/digest';
import { CHUNK_BYTES } from './profile.js';

const SHA2_256 = 0x12;
/** Links a dag-pb node holds in the profile: an object of up to this many chunks has a single inner node. */
const MAX_LINKS = 1024;
export const MAX_SMALL_CID_BYTES = MAX_LINKS * CHUNK_BYTES;

const cidOfBlock = (code: number, block: Uint8Array): CID => CID.createV1(code, digest(SHA2_256, sha256(block)));

/**
 * The same CID as `cidOf` (the `unixfs-v1-2025` profile), worked out synchronously for objects of at
 * most 1,024 chunks (1 GiB): one raw leaf, or one dag-pb file node over the raw leaves. For checks
 * inside a block's execution, which cannot wait on a stream.
 */
export function cidOfBytes(bytes: Uint8Array): string {
  if (bytes.length > MAX_SMALL_CID_BYTES)
    throw new RangeError(`cidOfBytes takes at most ${MAX_SMALL_CID_BYTES} bytes, not ${bytes.length}`);
  if (bytes.length <= CHUNK_BYTES) return cidOfBlock(raw.code, bytes).toString();
  const file = new UnixFS({ type: 'file' });
  const links: dagPb.PBLink[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    const chunk = bytes.subarray(at, at + CHUNK_BYTES);
    file.addBlockSize(BigInt(chunk.length));
    links.push({ Name: '', Tsize: chunk.length, Hash: cidOfBlock(raw.code, chunk) });
  }
  return cidOfBlock(dagPb.code, dagPb.encode(dagPb.prepare({ Data: file.marshal(), Links: links }))).toString();
}
