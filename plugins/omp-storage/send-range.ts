import type { ServerResponse } from 'node:http';
import type { ObjectStore } from '../../objects/store.js';

/** Reads from disk in chunks of 1 MiB (the CID's chunk): a sixteenth of the reads and socket writes of a default read stream. */
const CHUNK_BYTES = 1_048_576;

/** Chunk buffers kept for the next answers: reading into them allocates nothing (a fresh 1 MiB buffer per read kept the collector busy). */
const spare: Buffer[] = [];
const MAX_SPARE = 16;

const take = (): Buffer => spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
const giveBack = (buffer: Buffer): void => {
  if (spare.length < MAX_SPARE) spare.push(buffer);
};

/**
 * Writes bytes `start..end` (inclusive) of a stored object to a response whose head is written,
 * then ends it. The next chunk is read while the previous one is being written; a chunk's buffer is
 * reused only once the socket has taken it. A client that goes away ends the loop; a read that fails
 * destroys the response (its client sees a body shorter than announced, never wrong bytes).
 */
export async function sendRange(
  store: ObjectStore,
  cid: string,
  start: number,
  end: number,
  res: ServerResponse,
): Promise<void> {
  // A response closed early may never call its last write back: its close ends the wait as well.
  const closed = new Promise<boolean>((resolve) => res.once('close', () => resolve(res.writableFinished)));
  let written: Promise<boolean> = Promise.resolve(true);
  try {
    for (let at = start; at <= end; ) {
      const buffer = take();
      const bytes = await store.readAt(cid, buffer, Math.min(CHUNK_BYTES, end - at + 1), at);
      if (bytes === 0) throw new Error(`${cid} ended at byte ${at}, before ${end + 1}`);
      at += bytes;
      if (!(await written) || res.destroyed) return giveBack(buffer);
      const chunk = buffer.subarray(0, bytes);
      written = Promise.race([
        closed,
        new Promise<boolean>((resolve) => {
          const done = (error?: Error | null): void => {
            // The socket holds the buffer until its write is done or failed: only then is it free again.
            giveBack(buffer);
            resolve(!error);
          };
          if (at > end) res.end(chunk, done);
          else res.write(chunk, done);
        }),
      ]);
    }
    await written;
  } catch (error) {
    res.destroy(error as Error);
  }
}
