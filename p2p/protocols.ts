import type { PeerId, Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import type { SvcLibp2p } from './network.js';
import {
  BLOCKS_PROTOCOL,
  decodeBundle,
  decodeRange,
  decodeStatus,
  encodeBundle,
  encodeRange,
  encodeStatus,
  MAX_MESSAGE_BYTES,
  MAX_PENDING_PUSH,
  MAX_PENDING_TX_BYTES,
  PENDING_PROTOCOL,
  STATUS_PROTOCOL,
  type BlockBundle,
  type Status,
} from './wire.js';

/** A range response stops adding blocks past this many bytes; the requester asks for the rest. */
const MAX_RANGE_RESPONSE_BYTES = 8 * 1024 * 1024;
const MAX_STATUS_BYTES = 4096;
const MAX_RANGE_REQUEST_BYTES = 1024;

/** Status protocol, dialling side: sends ours, returns the peer's. */
export async function requestStatus(
  network: SvcLibp2p,
  peer: PeerId,
  ours: Status,
  signal: AbortSignal,
): Promise<Status> {
  const stream = await network.dialProtocol(peer, STATUS_PROTOCOL, { signal });
  const lp = lpStream(stream, { maxDataLength: MAX_STATUS_BYTES });
  await lp.write(encodeStatus(ours), { signal });
  const theirs = decodeStatus((await lp.read({ signal })).subarray());
  await stream.close().catch(() => undefined);
  return theirs;
}

/** Status protocol, answering side: reads the peer's status, answers with ours, returns theirs. */
export async function answerStatus(stream: Stream, ours: () => Status, signal: AbortSignal): Promise<Status> {
  const lp = lpStream(stream, { maxDataLength: MAX_STATUS_BYTES });
  const theirs = decodeStatus((await lp.read({ signal })).subarray());
  await lp.write(encodeStatus(ours()), { signal });
  await stream.close().catch(() => undefined);
  return theirs;
}

/** Blocks protocol, dialling side: up to `count` blocks from `from`, each checked to be the next height with its transactions and certificate. */
export async function requestBlocks(
  network: SvcLibp2p,
  peer: PeerId,
  from: number,
  count: number,
  signal: AbortSignal,
): Promise<BlockBundle[]> {
  const stream = await network.dialProtocol(peer, BLOCKS_PROTOCOL, { signal });
  try {
    const lp = lpStream(stream, { maxDataLength: MAX_MESSAGE_BYTES });
    await lp.write(encodeRange({ from, count }), { signal });
    const length = (await lp.read({ signal })).subarray()[0];
    if (length === undefined || length > count)
      throw new Error(`peer announced ${length} blocks for a range of ${count}`);
    const bundles: BlockBundle[] = [];
    for (let i = 0; i < length; i++) {
      const bundle = decodeBundle((await lp.read({ signal })).subarray());
      if (bundle.block.height !== from + i || bundle.raws === null || bundle.commit === null)
        throw new Error(
          `block ${i} of the range is not height ${from + i} with its transactions and commit certificate`,
        );
      bundles.push(bundle);
    }
    await stream.close().catch(() => undefined);
    return bundles;
  } catch (error) {
    stream.abort(error as Error);
    throw error;
  }
}

/** Blocks protocol, answering side: the requested range, as far as this node has it and within the byte budget. */
export async function serveBlocks(
  stream: Stream,
  block: (height: number) => Promise<BlockBundle | undefined>,
  head: number,
  signal: AbortSignal,
): Promise<void> {
  const lp = lpStream(stream, { maxDataLength: MAX_RANGE_REQUEST_BYTES });
  const { from, count } = decodeRange((await lp.read({ signal })).subarray());
  const messages: Uint8Array[] = [];
  let bytes = 0;
  for (let height = from; height < from + count && height <= head && bytes < MAX_RANGE_RESPONSE_BYTES; height++) {
    const bundle = await block(height);
    if (!bundle) break;
    const message = encodeBundle(bundle);
    messages.push(message);
    bytes += message.length;
  }
  // The count goes first (one byte: at most MAX_RANGE), so the requester knows when the range ends.
  await lp.write(new Uint8Array([messages.length]), { signal });
  for (const message of messages) await lp.write(message, { signal });
  await stream.close().catch(() => undefined);
}

/** Pending protocol, dialling side: sends raw transactions to a peer, one message each, then closes. */
export async function pushPending(
  network: SvcLibp2p,
  peer: PeerId,
  raws: readonly Uint8Array[],
  signal: AbortSignal,
): Promise<void> {
  const stream = await network.dialProtocol(peer, PENDING_PROTOCOL, { signal });
  try {
    const lp = lpStream(stream, { maxDataLength: MAX_PENDING_TX_BYTES });
    for (const raw of raws.slice(0, MAX_PENDING_PUSH)) await lp.write(raw, { signal });
    await stream.close();
  } catch (error) {
    stream.abort(error as Error);
    throw error;
  }
}

/** Pending protocol, answering side: hands each raw transaction to `admit` until the peer closes. */
export async function receivePending(
  stream: Stream,
  admit: (raw: Uint8Array) => Promise<void>,
  signal: AbortSignal,
): Promise<number> {
  const lp = lpStream(stream, { maxDataLength: MAX_PENDING_TX_BYTES });
  let count = 0;
  for (; count < MAX_PENDING_PUSH; count++) {
    let message;
    try {
      message = await lp.read({ signal });
    } catch (error) {
      // The sender closing its side is how the push ends.
      if ((error as Error).name === 'UnexpectedEOFError') break;
      throw error;
    }
    await admit(message.subarray());
  }
  await stream.close().catch(() => undefined);
  return count;
}
