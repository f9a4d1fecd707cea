import { createReadStream } from 'node:fs';
import type { Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import type { ObjectStore } from '../../objects/store.js';

/** Storage nodes hand each other objects (a secondary fetching its copy, a node reading for a client) on this protocol. */
export const OBJECT_PROTOCOL = '/svc/omp/object/1.0.0';
const CHUNK_BYTES = 1_048_576;
const MAX_MESSAGE_BYTES = CHUNK_BYTES + 1024;

interface ObjectRequest {
  readonly cid: string;
  /** A byte range, end inclusive; the whole object without one. */
  readonly start?: number;
  readonly end?: number;
}

export type ObjectHeader =
  | { readonly size: number; readonly mediaType: string; readonly start: number; readonly end: number }
  | { readonly error: string };

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const parse = <T>(bytes: Uint8Array): T => JSON.parse(new TextDecoder().decode(bytes)) as T;

/** Answering side: a header, then the bytes asked for in messages of up to 1 MiB, read from disk. */
export async function serveObject(stream: Stream, store: ObjectStore, signal: AbortSignal): Promise<void> {
  const lp = lpStream(stream, { maxDataLength: MAX_MESSAGE_BYTES });
  const request = parse<ObjectRequest>((await lp.read({ signal })).subarray());
  const held = typeof request.cid === 'string' ? store.summary(request.cid) : undefined;
  if (!held || held.size === 0) {
    await lp.write(json({ error: held ? 'empty object' : `not held: ${String(request.cid)}` }), { signal });
    return void (await stream.close().catch(() => undefined));
  }
  const start = Math.max(0, Math.min(request.start ?? 0, held.size - 1));
  const end = Math.max(start, Math.min(request.end ?? held.size - 1, held.size - 1));
  await lp.write(json({ size: held.size, mediaType: held.mediaType, start, end }), { signal });
  for await (const chunk of createReadStream(store.path(held.cid), { start, end, highWaterMark: CHUNK_BYTES }))
    await lp.write(chunk as Buffer, { signal });
  await stream.close().catch(() => undefined);
}

/** Asking side: the header, and the bytes as they arrive (to stream on, or to store). */
export async function requestObject(
  stream: Stream,
  request: ObjectRequest,
  signal: AbortSignal,
): Promise<{ header: ObjectHeader; body: AsyncGenerator<Uint8Array> }> {
  const lp = lpStream(stream, { maxDataLength: MAX_MESSAGE_BYTES });
  await lp.write(json(request), { signal });
  const header = parse<ObjectHeader>((await lp.read({ signal })).subarray());
  async function* body(): AsyncGenerator<Uint8Array> {
    if ('error' in header) return;
    let left = header.end - header.start + 1;
    try {
      while (left > 0) {
        const message = (await lp.read({ signal })).subarray();
        left -= message.length;
        yield message;
      }
      if (left < 0) throw new Error('the peer sent more bytes than it announced');
      await stream.close().catch(() => undefined);
    } catch (error) {
      stream.abort(error as Error);
      throw error;
    }
  }
  return { header, body: body() };
}
