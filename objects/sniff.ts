import { fileTypeFromBuffer } from 'file-type';

/** The media formats a storage provider may serve. */
export type MediaFormat = 'image' | 'video' | 'document';

export interface SniffedMedia {
  readonly mediaType: string;
  readonly format: MediaFormat;
}

/** Bytes of the head the sniffer looks at (what file-type reads for its signatures). */
export const SNIFF_BYTES = 4100;

/** Document types by their sniffed MIME type (images and videos go by their top-level type). */
const DOCUMENTS = new Set([
  'application/pdf',
  'application/epub+zip',
  'application/rtf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  // A WebAssembly module is stored as a document: compute jobs name their code by its CID.
  'application/wasm',
]);

/**
 * What the bytes are, from their head alone (never from a name or a declared type): images and
 * videos by their signatures, documents by theirs, and text without a signature (valid UTF-8, no
 * NUL) as a `text/plain` document. Anything else is undefined: not a format a provider serves.
 */
export async function sniffMedia(head: Uint8Array, complete: boolean): Promise<SniffedMedia | undefined> {
  const type = await fileTypeFromBuffer(head);
  if (type) {
    if (type.mime.startsWith('image/')) return { mediaType: type.mime, format: 'image' };
    if (type.mime.startsWith('video/')) return { mediaType: type.mime, format: 'video' };
    if (DOCUMENTS.has(type.mime)) return { mediaType: type.mime, format: 'document' };
    return undefined;
  }
  return isText(head, complete) ? { mediaType: 'text/plain; charset=utf-8', format: 'document' } : undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodes(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** `complete`: the head is the whole object; else it may end inside a multi-byte character. */
function isText(head: Uint8Array, complete: boolean): boolean {
  if (head.length === 0 || head.includes(0)) return false;
  const cuts = complete ? [0] : [0, 1, 2, 3];
  return cuts.some((cut) => cut < head.length && decodes(head.subarray(0, head.length - cut)));
}

/**
 * Types that claim nothing about the bytes: none, "some bytes", and what `curl --data-binary` sends
 * when not told otherwise.
 */
const NO_CLAIM = new Set(['', 'application/octet-stream', 'application/x-www-form-urlencoded']);

/** Whether a declared Content-Type contradicts what the bytes are (a spoofed type). */
export function contradicts(declared: string | undefined, sniffed: SniffedMedia): boolean {
  const type = (declared?.split(';')[0] ?? '').trim().toLowerCase();
  if (NO_CLAIM.has(type)) return false;
  if (type.startsWith('image/')) return sniffed.format !== 'image';
  if (type.startsWith('video/')) return sniffed.format !== 'video';
  if (type.startsWith('text/') || DOCUMENTS.has(type)) return sniffed.format !== 'document';
  return type !== sniffed.mediaType.split(';')[0];
}
