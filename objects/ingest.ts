import type { FileHandle } from 'node:fs/promises';
import { CommitmentBuilder } from './commitment.js';
import { cidOf, type DagNodes } from './profile.js';
import { contradicts, sniffMedia, SNIFF_BYTES, type MediaFormat, type SniffedMedia } from './sniff.js';

/** An upload refused: the HTTP status and error name it is answered with, and why. */
export class UploadRefused extends Error {
  override name = 'UploadRefused';
  constructor(
    readonly status: 413 | 415 | 507,
    readonly error: 'object_too_large' | 'unsupported_format' | 'capacity_exceeded',
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface IngestRules {
  /** The most bytes one object may have. */
  readonly maxBytes: number;
  /** Bytes this upload may still grow to (capacity and disk, less what other uploads hold), asked with its size so far as bytes arrive. */
  readonly room: (received: number) => number;
  readonly formats: readonly MediaFormat[];
  /** The uploader's Content-Type, if it gave one: a type the bytes contradict is refused. */
  readonly declaredType?: string;
}

export interface Ingested extends SniffedMedia {
  readonly cid: string;
  readonly size: number;
  /** Root of the segment Merkle tree storage proofs are checked against (32 bytes). */
  readonly root: Uint8Array;
  /** Each 1 MiB piece's root, 32 bytes each, in order. */
  readonly pieceRoots: Uint8Array;
  readonly nodes: DagNodes;
}

const BATCH_BYTES = 1_048_576;
const SYNC_EVERY_BYTES = 16 * 1_048_576;

const mib = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/**
 * One pass over an upload: each chunk is checked against the limits, written to `file`, hashed into
 * the commitment and handed to the CID importer; the media type is sniffed from the first 4,100
 * bytes before more is accepted. The body is never held whole. Throws UploadRefused (nothing is
 * kept: the caller removes the file).
 */
export async function ingest(body: AsyncIterable<Uint8Array>, file: FileHandle, rules: IngestRules): Promise<Ingested> {
  const commitment = new CommitmentBuilder();
  let size = 0;
  let head: Uint8Array[] = [];
  let headBytes = 0;
  let media: SniffedMedia | undefined;

  const decide = async (complete: boolean): Promise<void> => {
    const sniffed = await sniffMedia(Buffer.concat(head), complete);
    head = [];
    if (!sniffed)
      throw new UploadRefused(
        415,
        'unsupported_format',
        'the bytes are not an image, video or document this network stores',
        { formats: rules.formats },
      );
    if (contradicts(rules.declaredType, sniffed))
      throw new UploadRefused(
        415,
        'unsupported_format',
        `the bytes are ${sniffed.mediaType}, not the declared ${rules.declaredType}`,
        { mediaType: sniffed.mediaType },
      );
    if (!rules.formats.includes(sniffed.format))
      throw new UploadRefused(
        415,
        'unsupported_format',
        `${sniffed.format} (${sniffed.mediaType}) is not among this node's formats: ${rules.formats.join(', ')}`,
        { mediaType: sniffed.mediaType, formats: rules.formats },
      );
    media = sniffed;
  };

  // The socket hands over small chunks: they go on in batches of about a chunk of the CID (fewer
  // writes and hashing calls), and a batch's write overlaps the hashing of the next.
  // The caller syncs the file before it acknowledges the object; syncing what is written as it goes
  // spreads that wait over the upload instead of adding it at the end.
  let writing: Promise<unknown> = Promise.resolve();
  let syncing: Promise<unknown> = Promise.resolve();
  let unsynced = 0;
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  const flush = async (): Promise<Uint8Array> => {
    const bytes = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batchBytes);
    batch = [];
    batchBytes = 0;
    commitment.update(bytes);
    await writing;
    writing = file.write(bytes);
    unsynced += bytes.length;
    if (unsynced >= SYNC_EVERY_BYTES) {
      unsynced = 0;
      const written = writing;
      syncing = Promise.all([syncing, written]).then(() => file.datasync());
    }
    return bytes;
  };

  async function* checked(): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      if (chunk.length === 0) continue;
      size += chunk.length;
      if (size > rules.maxBytes)
        throw new UploadRefused(
          413,
          'object_too_large',
          `the object passes this node's limit of ${mib(rules.maxBytes)}`,
          { limit: rules.maxBytes },
        );
      const room = rules.room(size);
      if (size > room)
        throw new UploadRefused(
          507,
          'capacity_exceeded',
          `the object passes the room this node has left: ${mib(room)}`,
          { room },
        );
      if (!media) {
        head.push(chunk);
        headBytes += chunk.length;
        if (headBytes >= SNIFF_BYTES) await decide(false);
      }
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes >= BATCH_BYTES) yield await flush();
    }
    if (!media) await decide(true);
    if (batchBytes > 0) yield await flush();
    await writing;
    await syncing;
  }

  const { cid, nodes } = await cidOf(checked());
  const { root, pieceRoots } = commitment.finish();
  return { cid: cid.toString(), size, ...media!, root, pieceRoots: Buffer.concat(pieceRoots), nodes };
}
