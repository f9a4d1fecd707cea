import * as dagPb from '@ipld/dag-pb';
import { UnixFS } from 'ipfs-unixfs';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { sha256 } from 'multiformats/hashes/sha2';

/**
 * The `unixfs-v1-2025` CID of a file of up to 1024 chunks, built by hand from the UnixFS spec
 * (independent of the importer the node uses): 1 MiB raw leaves, one dag-pb File node linking them
 * in order with their sizes; a file of one chunk is its raw leaf.
 */
export async function referenceCid(bytes: Uint8Array): Promise<string> {
  const CHUNK = 1_048_576;
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK) chunks.push(bytes.subarray(at, at + CHUNK));
  if (chunks.length <= 1) return CID.createV1(raw.code, await sha256.digest(chunks[0] ?? new Uint8Array(0))).toString();
  if (chunks.length > 1024) throw new Error('the reference builder covers single-level DAGs only');
  const leaves = await Promise.all(chunks.map(async (chunk) => CID.createV1(raw.code, await sha256.digest(chunk))));
  const file = new UnixFS({ type: 'file', blockSizes: chunks.map((c) => BigInt(c.length)) });
  const node = dagPb.encode(
    dagPb.prepare({
      Data: file.marshal(),
      Links: leaves.map((cid, i) => ({ Hash: cid, Name: '', Tsize: chunks[i]!.length })),
    }),
  );
  return CID.createV1(dagPb.code, await sha256.digest(node)).toString();
}

/** Deterministic fixture bytes: byte i is (i × 31 + 7) mod 256. */
export function patternBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff;
  return bytes;
}
