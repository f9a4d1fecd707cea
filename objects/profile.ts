import { importByteStream } from 'ipfs-unixfs-importer';
import * as dagPb from '@ipld/dag-pb';
import type { CID } from 'multiformats/cid';

/**
 * How an object's CID is made: the IPIP-499 `unixfs-v1-2025` profile — CIDv1, sha2-256, fixed 1 MiB
 * chunks as raw leaves, a balanced DAG of up to 1024 links per node, a single-chunk object's CID the
 * raw leaf itself. `ipfs add --cid-version=1 --raw-leaves --chunker=size-1048576` with 1024-link
 * nodes (Kubo's `unixfs-v1-2025` profile, Helia's defaults) gives the same CID for the same bytes.
 */
export const CID_PROFILE = 'unixfs-v1-2025' as const;
export const CHUNK_BYTES = 1_048_576;

/** The DAG's inner (dag-pb) nodes, in no particular order; raw leaves are the object's own bytes. */
export type DagNodes = Array<[cid: string, bytes: Uint8Array]>;

/** The CID of the bytes a stream yields, and the inner nodes a CAR export needs besides them. */
export async function cidOf(chunks: AsyncIterable<Uint8Array>): Promise<{ cid: CID; nodes: DagNodes }> {
  const nodes: DagNodes = [];
  const blockstore = {
    put(cid: CID, bytes: Uint8Array): CID {
      if (cid.code === dagPb.code) nodes.push([cid.toString(), bytes]);
      return cid;
    },
  };
  const { cid } = await importByteStream(chunks, blockstore, { profile: CID_PROFILE });
  return { cid, nodes };
}
