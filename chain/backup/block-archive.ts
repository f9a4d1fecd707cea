import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { CommitCertificate } from '../../sdk/block.js';
import { decode, encode } from '../../sdk/encoding.js';
import type { Block } from '../schemas.js';

/**
 * A chain's blocks in one file (`svc-node export-blocks`, `import-blocks`): the line `svc-blocks 1\n`,
 * then records, each a 4-byte big-endian length and that many bytes of CBOR — first the header, then
 * one `[block, raw transactions, commit certificate]` per block in height order. What a block holds is
 * checked by executing it again on import; the file itself carries no checksum.
 */
export const BLOCK_ARCHIVE_MAGIC = 'svc-blocks 1\n';

export interface BlockArchiveHeader {
  readonly chainId: string;
  readonly genesisHash: string;
  /** The first and last height the file holds. */
  readonly from: number;
  readonly to: number;
}

export interface ArchivedBlock {
  readonly block: Block;
  readonly raws: readonly Uint8Array[];
  readonly commit: CommitCertificate;
}

/** Why a block archive cannot be read on: its bytes end early or do not decode (names the record). */
export class BlockArchiveError extends Error {
  override name = 'BlockArchiveError';
}

/** Writes the header, then every block `blocks` yields; resolves with how many. */
export async function writeBlockArchive(
  path: string,
  header: BlockArchiveHeader,
  blocks: AsyncIterable<ArchivedBlock>,
): Promise<number> {
  const out = createWriteStream(path, { flags: 'wx' });
  const failed = once(out, 'error').then(([error]) => {
    throw error;
  });
  const put = async (value: unknown): Promise<void> => {
    const body = encode(value);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    out.write(length);
    if (!out.write(body)) await Promise.race([once(out, 'drain'), failed]);
  };
  out.write(BLOCK_ARCHIVE_MAGIC);
  await put(header);
  let count = 0;
  for await (const { block, raws, commit } of blocks) {
    await put([block, raws, commit]);
    count++;
  }
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
  return count;
}

/** The header, then each block of the file in order; throws BlockArchiveError naming the record that cannot be read. */
export async function* readBlockArchive(
  path: string,
): AsyncGenerator<{ header: BlockArchiveHeader } | { block: ArchivedBlock; index: number }> {
  let buffered: Buffer = Buffer.alloc(0);
  let record = -1;
  let magicChecked = false;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    buffered = buffered.length === 0 ? (chunk as Buffer) : Buffer.concat([buffered, chunk as Buffer]);
    if (!magicChecked) {
      if (buffered.length < BLOCK_ARCHIVE_MAGIC.length) continue;
      if (buffered.subarray(0, BLOCK_ARCHIVE_MAGIC.length).toString('latin1') !== BLOCK_ARCHIVE_MAGIC)
        throw new BlockArchiveError(`${path} is not a block archive (it does not start with "svc-blocks 1")`);
      buffered = buffered.subarray(BLOCK_ARCHIVE_MAGIC.length);
      magicChecked = true;
    }
    while (buffered.length >= 4) {
      const length = buffered.readUInt32BE(0);
      if (buffered.length < 4 + length) break;
      const body = buffered.subarray(4, 4 + length);
      buffered = buffered.subarray(4 + length);
      record++;
      yield record === 0 ? { header: parse<BlockArchiveHeader>(body, 'the header') } : block(body, record);
    }
  }
  if (!magicChecked || buffered.length > 0)
    throw new BlockArchiveError(
      `${path} ends inside ${record < 0 ? 'the header' : `the record after block record ${record}`}: the file is cut short`,
    );
}

function parse<T>(body: Uint8Array, what: string): T {
  try {
    return decode<T>(body);
  } catch (error) {
    throw new BlockArchiveError(`${what} does not decode: ${(error as Error).message}`);
  }
}

function block(body: Uint8Array, index: number): { block: ArchivedBlock; index: number } {
  const value = parse<unknown>(body, `block record ${index}`);
  if (!Array.isArray(value) || value.length !== 3 || !Array.isArray(value[1]))
    throw new BlockArchiveError(`block record ${index} is not [block, raw transactions, certificate]`);
  const [b, raws, commit] = value as [Block, Uint8Array[], CommitCertificate];
  return { block: { block: b, raws, commit }, index };
}
