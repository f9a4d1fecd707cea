import { open } from 'node:fs/promises';
import * as dagCbor from '@ipld/dag-cbor';
import * as dagPb from '@ipld/dag-pb';
import { UnixFS } from 'ipfs-unixfs';
import { CID } from 'multiformats/cid';
import { varint } from 'multiformats';
import type { DagNodes } from './profile.js';

/** Raw leaf codec (multicodec 0x55). */
const RAW = 0x55;

function frame(cid: CID, bytes: Uint8Array): Uint8Array[] {
  const length = cid.bytes.length + bytes.length;
  const prefix = new Uint8Array(varint.encodingLength(length));
  varint.encodeTo(length, prefix);
  return [prefix, cid.bytes, bytes];
}

/**
 * The object as a CARv1 (what `ipfs dag export` writes): a header naming the root, then every block
 * of the DAG depth first — inner nodes from the record, raw leaves read from the file in order. A
 * client checks each block against its CID and the root against the one it asked for.
 */
export async function* carExport(root: string, nodes: DagNodes, file: string): AsyncGenerator<Uint8Array> {
  const rootCid = CID.parse(root);
  const header = dagCbor.encode({ version: 1, roots: [rootCid] });
  const prefix = new Uint8Array(varint.encodingLength(header.length));
  varint.encodeTo(header.length, prefix);
  yield prefix;
  yield header;
  const inner = new Map(nodes.map(([cid, bytes]) => [cid, bytes]));
  const handle = await open(file, 'r');
  let offset = 0;
  try {
    async function* visit(cid: CID, size: number | undefined): AsyncGenerator<Uint8Array> {
      if (cid.code === RAW) {
        const length = size ?? (await handle.stat()).size - offset;
        const bytes = new Uint8Array(length);
        const { bytesRead } = await handle.read(bytes, 0, length, offset);
        if (bytesRead !== length) throw new Error(`object file ${file} is shorter than its DAG`);
        offset += length;
        yield* frame(cid, bytes);
        return;
      }
      const bytes = inner.get(cid.toString());
      if (!bytes) throw new Error(`inner node ${cid} of ${root} is not in the record`);
      yield* frame(cid, bytes);
      const node = dagPb.decode(bytes);
      const sizes = node.Data ? UnixFS.unmarshal(node.Data).blockSizes : [];
      for (const [i, link] of node.Links.entries())
        yield* visit(link.Hash, sizes[i] === undefined ? undefined : Number(sizes[i]));
    }
    yield* visit(rootCid, undefined);
  } finally {
    await handle.close();
  }
}
