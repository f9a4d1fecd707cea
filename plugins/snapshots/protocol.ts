import type { Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import { decode, encode } from '../../sdk/encoding.js';
import { decodeManifest, encodeManifest, type SnapshotManifest } from '../../chain/snapshots/format.js';
import type { SnapshotOffer, SnapshotStore } from '../../chain/snapshots/store.js';

/**
 * `/svc/snapshots/1.0.0`: one request, one answer, each a length-prefixed message. The request is CBOR
 * `{ op: "offers" }`, `{ op: "manifest", height }` or `{ op: "chunk", height, index }`; the answer is
 * CBOR `[{ height, blockHash, chunks }]` (newest first), the manifest's CBOR, or the chunk's bytes — an
 * empty message when the node has no such snapshot or chunk.
 */
export const SNAPSHOTS_PROTOCOL = '/svc/snapshots/1.0.0';
const MAX_REQUEST_BYTES = 256;
/** A chunk is about 1 MiB (whole buckets); this leaves room for a bucket of large values. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

type Request =
  | { readonly op: 'offers' }
  | { readonly op: 'manifest'; readonly height: number }
  | { readonly op: 'chunk'; readonly height: number; readonly index: number };

const isHeight = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/** The answering side: reads one request, answers from the store. */
export async function answerSnapshots(stream: Stream, store: SnapshotStore, signal: AbortSignal): Promise<void> {
  const lp = lpStream(stream, { maxDataLength: MAX_REQUEST_BYTES });
  const request = decode<Request>((await lp.read({ signal })).subarray());
  let answer: Uint8Array;
  if (request?.op === 'offers') answer = encode(await store.offers());
  else if (request?.op === 'manifest' && isHeight(request.height)) {
    const manifest = await store.manifest(request.height);
    answer = manifest ? encodeManifest(manifest) : new Uint8Array(0);
  } else if (request?.op === 'chunk' && isHeight(request.height) && isHeight(request.index))
    answer = (await store.chunk(request.height, request.index)) ?? new Uint8Array(0);
  else throw new Error('not a snapshots request');
  await lp.write(answer, { signal });
  await stream.close().catch(() => undefined);
}

async function ask(stream: Stream, request: Request, signal: AbortSignal): Promise<Uint8Array> {
  try {
    const lp = lpStream(stream, { maxDataLength: MAX_ANSWER_BYTES });
    await lp.write(encode(request), { signal });
    const answer = (await lp.read({ signal })).subarray();
    await stream.close().catch(() => undefined);
    return answer;
  } catch (error) {
    stream.abort(error as Error);
    throw error;
  }
}

/** The asking side, over streams the caller opens to a peer. */
export const snapshotRequests = {
  async offers(stream: Stream, signal: AbortSignal): Promise<SnapshotOffer[]> {
    const offers = decode<SnapshotOffer[]>(await ask(stream, { op: 'offers' }, signal));
    if (!Array.isArray(offers)) throw new Error('the offers are not a list');
    return offers.filter((o) => isHeight(o?.height) && isHeight(o?.chunks) && typeof o.blockHash === 'string');
  },
  async manifest(stream: Stream, height: number, signal: AbortSignal): Promise<SnapshotManifest | undefined> {
    const bytes = await ask(stream, { op: 'manifest', height }, signal);
    return bytes.length === 0 ? undefined : decodeManifest(bytes);
  },
  async chunk(stream: Stream, height: number, index: number, signal: AbortSignal): Promise<Uint8Array | undefined> {
    const bytes = await ask(stream, { op: 'chunk', height, index }, signal);
    return bytes.length === 0 ? undefined : bytes;
  },
};
