import type { Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import { decode, encode } from '../../sdk/encoding.js';

/**
 * A validator asks the peer that relayed a proposal (or a decided block) for the transactions it
 * lists that this validator does not hold: request a CBOR array of transaction hashes, answer one
 * CBOR array of the same length, each entry the raw transaction or null (not held), then the stream
 * closes. The relaying peer judged the block before passing it on, so it holds them.
 */
export const BLOCK_TRANSACTIONS_PROTOCOL = '/svc/consensus/transactions/1.0.0';

/** Most hashes one request may list: more than a proposal's byte cap holds transactions. */
export const MAX_REQUESTED_TRANSACTIONS = 20_000;
const MAX_REQUEST_BYTES = MAX_REQUESTED_TRANSACTIONS * 70;
/** The answer stops adding transactions past this many bytes (a proposal's transactions fit well within it). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const HASH = /^0x[0-9a-f]{64}$/;

/** The asking side: the raw transactions for `hashes`, in order, undefined where the peer has none. */
export async function requestTransactions(
  stream: Stream,
  hashes: readonly string[],
  signal: AbortSignal,
): Promise<(Uint8Array | undefined)[]> {
  try {
    const lp = lpStream(stream, { maxDataLength: MAX_ANSWER_BYTES + MAX_REQUESTED_TRANSACTIONS * 8 });
    await lp.write(encode(hashes), { signal });
    const answer = decode<unknown>((await lp.read({ signal })).subarray());
    if (!Array.isArray(answer) || answer.length !== hashes.length)
      throw new Error(`the peer answered ${Array.isArray(answer) ? answer.length : 'no'} entries for ${hashes.length}`);
    await stream.close().catch(() => undefined);
    return answer.map((raw) => (raw instanceof Uint8Array ? raw : undefined));
  } catch (error) {
    stream.abort(error as Error);
    throw error;
  }
}

/** The answering side: each requested transaction `lookup` finds, within the byte budget. */
export async function answerTransactions(
  stream: Stream,
  lookup: (hash: string) => Uint8Array | undefined | Promise<Uint8Array | undefined>,
  signal: AbortSignal,
): Promise<void> {
  const lp = lpStream(stream, { maxDataLength: MAX_REQUEST_BYTES });
  const request = decode<unknown>((await lp.read({ signal })).subarray());
  if (
    !Array.isArray(request) ||
    request.length > MAX_REQUESTED_TRANSACTIONS ||
    !request.every((hash) => typeof hash === 'string' && HASH.test(hash))
  )
    throw new Error(`a transactions request is an array of up to ${MAX_REQUESTED_TRANSACTIONS} transaction hashes`);
  const answer: (Uint8Array | null)[] = [];
  let bytes = 0;
  for (const hash of request as string[]) {
    const raw = await lookup(hash);
    const fits = raw !== undefined && bytes + raw.length <= MAX_ANSWER_BYTES;
    answer.push(fits ? raw : null);
    if (fits) bytes += raw.length;
  }
  await lp.write(encode(answer), { signal });
  await stream.close().catch(() => undefined);
}
