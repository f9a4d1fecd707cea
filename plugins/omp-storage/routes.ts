import { pipeline } from 'node:stream/promises';
import type { StorageDetailsSchema } from '../omp/provider-kind.js';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { CID } from 'multiformats/cid';
import type { RouteSpec } from '../../kernel/plugin.js';
import { carExport } from '../../objects/car.js';
import { UploadRefused } from '../../objects/ingest.js';
import { parseRange } from '../../objects/range.js';
import type { ProviderService } from '../providers/service.js';
import type { StorageObjects } from './objects.js';
import { sendRange } from './send-range.js';

type NodeContext = Context<{ Bindings: HttpBindings }>;

const objectsOf = (service: ProviderService<StorageObjects, typeof StorageDetailsSchema>): StorageObjects =>
  service.extension;

/** An error answer in the routes' shape: `{ error, message, ...details }`. */
const refuse = (
  c: Context,
  status: number,
  error: string,
  message: string,
  details: Record<string, unknown> = {},
  close = false,
): Response => c.json({ error, message, ...details }, status as never, close ? { connection: 'close' } : {});

/** Most of a refused upload read off so its client gets the answer; past it the connection is closed. */
const DRAIN_LIMIT_BYTES = 64 * 1_048_576;

/** Reads and discards the rest of a request body; false when it is longer than `limit` (it is left unread). */
async function drained(incoming: HttpBindings['incoming'], limit: number): Promise<boolean> {
  const declared = Number(incoming.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return false;
  let bytes = 0;
  for await (const chunk of incoming.iterator({ destroyOnReturn: false })) {
    bytes += (chunk as Buffer).length;
    if (bytes > limit) return false;
  }
  return true;
}

/** `PUT /omp/objects`: the body streamed to disk with its CID, commitment and media type worked out on the way. */
async function upload(
  c: NodeContext,
  service: ProviderService<StorageObjects, typeof StorageDetailsSchema>,
): Promise<Response> {
  const objects = objectsOf(service);
  const incoming = c.env.incoming;
  const refuseUpload = async (
    status: number,
    error: string,
    message: string,
    details: Record<string, unknown> = {},
  ): Promise<Response> => refuse(c, status, error, message, details, !(await drained(incoming, DRAIN_LIMIT_BYTES)));
  const terms = await objects.uploadTerms();
  if ('refused' in terms) return refuseUpload(403, 'not_a_provider', terms.refused);
  const declared = Number(incoming.headers['content-length']);
  const { maxObjectBytes } = objects.options;
  if (Number.isFinite(declared) && declared > maxObjectBytes)
    return refuseUpload(413, 'object_too_large', `the object passes this node's limit of ${maxObjectBytes} bytes`, {
      limit: maxObjectBytes,
    });
  const { usedBytes, stagedBytes } = objects.store.usage();
  if (Number.isFinite(declared) && declared > terms.capacityBytes - usedBytes - stagedBytes) {
    return refuseUpload(
      507,
      'capacity_exceeded',
      `the object (${declared} bytes) passes the room this node has left: ${terms.capacityBytes - usedBytes - stagedBytes} bytes`,
      { capacityBytes: terms.capacityBytes, usedBytes, stagedBytes },
    );
  }
  const type = incoming.headers['content-type'];
  try {
    // Not destroyed when the upload is refused part way: the rest is read off (up to a bound) so the
    // client, still sending, gets the answer instead of a reset connection.
    const body = incoming.iterator({ destroyOnReturn: false });
    const { summary, created } = await objects.store.put(body, {
      maxBytes: maxObjectBytes,
      capacityBytes: terms.capacityBytes,
      formats: terms.formats,
      ...(type ? { declaredType: type } : {}),
    });
    return c.json(
      {
        cid: summary.cid,
        size: summary.size,
        mediaType: summary.mediaType,
        format: summary.format,
        root: summary.root,
      },
      created ? 201 : 200,
    );
  } catch (error) {
    if (error instanceof UploadRefused) return refuseUpload(error.status, error.error, error.message, error.details);
    throw error;
  }
}

/**
 * `GET|HEAD /ipfs/<cid>`: the bytes (or a byte range, or a CAR) streamed from disk, as an IPFS path
 * gateway answers. Bodies are written straight to the socket from the file; answers without a body
 * (HEAD — which hono routes to this GET handler —, 304, 416) are plain Responses.
 */
async function retrieve(
  c: NodeContext,
  service: ProviderService<StorageObjects, typeof StorageDetailsSchema>,
): Promise<Response> {
  const raw = c.req.param('cid') ?? '';
  const objects = objectsOf(service);
  // The canonical form (CIDv1, base32) of an object held here is found as it is; any other is parsed.
  let cid = raw;
  if (!objects.summary(raw)) {
    try {
      cid = CID.parse(raw).toV1().toString();
    } catch {
      return refuse(c, 400, 'invalid_params', `${raw} is not a CID`);
    }
  }
  const summary = objects.summary(cid);
  if (!summary) return fromHolders(c, objects, cid);
  const head = c.env.incoming.method === 'HEAD';
  const car = c.req.query('format') === 'car' || (c.req.header('accept') ?? '').includes('application/vnd.ipld.car');
  const etag = car ? `"${cid}.car"` : `"${cid}"`;
  const common = {
    etag,
    'cache-control': 'public, max-age=29030400, immutable',
    'x-ipfs-path': `/ipfs/${cid}`,
    'x-content-type-options': 'nosniff',
  };
  const inm = c.req.header('if-none-match');
  if (inm?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*'))
    return new Response(null, { status: 304, headers: common });
  if (car) {
    const headers = {
      ...common,
      'content-type': 'application/vnd.ipld.car; version=1',
      'content-disposition': `attachment; filename="${cid}.car"`,
    };
    if (head) return new Response(null, { status: 200, headers });
    const record = (await objects.store.record(cid))!;
    c.env.outgoing.writeHead(200, headers);
    await pipeline(Readable.from(carExport(cid, record.nodes, objects.store.path(cid))), c.env.outgoing).catch(
      () => undefined,
    );
    return RESPONSE_ALREADY_SENT;
  }
  const range = parseRange(c.req.header('range'), summary.size);
  const base = { ...common, 'accept-ranges': 'bytes', 'content-type': summary.mediaType };
  if (range.kind === 'unsatisfiable') {
    const body = JSON.stringify({
      error: 'range_not_satisfiable',
      message: `the range ${c.req.header('range')} starts past the end of a ${summary.size}-byte object`,
    });
    return new Response(head ? null : body, {
      status: 416,
      headers: { ...base, 'content-range': `bytes */${summary.size}`, 'content-type': 'application/json' },
    });
  }
  const [start, end, status] = range.kind === 'partial' ? [range.start, range.end, 206] : [0, summary.size - 1, 200];
  const headers = {
    ...base,
    'content-length': String(Math.max(0, end - start + 1)),
    ...(range.kind === 'partial' ? { 'content-range': `bytes ${start}-${end}/${summary.size}` } : {}),
  };
  if (summary.size === 0) return new Response(head ? null : new Uint8Array(0), { status, headers });
  if (head) return new Response(null, { status, headers });
  c.env.outgoing.writeHead(status, headers);
  await sendRange(objects.store, cid, start, end, c.env.outgoing);
  return RESPONSE_ALREADY_SENT;
}

/**
 * A read of an object this node does not hold: streamed through from a provider that does (over
 * libp2p), with the range asked for; 404 naming the holders when none answers.
 */
async function fromHolders(c: NodeContext, objects: StorageObjects, cid: string): Promise<Response> {
  const holders = objects.holders(cid);
  if (holders.length === 0) return refuse(c, 404, 'not_found', `no provider holds ${cid}`);
  // The size is not known before a holder answers: a range is read against the whole object's.
  const asked = c.req.header('range');
  const wanted = asked ? /^bytes=(\d+)-(\d*)$/.exec(asked.trim()) : null;
  const range = wanted
    ? { start: Number(wanted[1]), end: wanted[2] ? Number(wanted[2]) : Number.MAX_SAFE_INTEGER }
    : undefined;
  const served = await objects.fromHolders(cid, range, AbortSignal.timeout(600_000));
  if (!served)
    return refuse(c, 404, 'not_found', `this node does not hold ${cid}, and none of its providers answered`, {
      providers: holders,
    });
  const { header, body } = served;
  if (range && range.start >= header.size)
    return refuse(
      c,
      416,
      'range_not_satisfiable',
      `the range ${asked} starts past the end of a ${header.size}-byte object`,
    );
  const headers = {
    etag: `"${cid}"`,
    'cache-control': 'public, max-age=29030400, immutable',
    'x-ipfs-path': `/ipfs/${cid}`,
    'x-content-type-options': 'nosniff',
    'accept-ranges': 'bytes',
    'content-type': header.mediaType,
    'content-length': String(header.end - header.start + 1),
    ...(range ? { 'content-range': `bytes ${header.start}-${header.end}/${header.size}` } : {}),
  };
  if (c.env.incoming.method === 'HEAD') {
    await body.return(undefined);
    return new Response(null, { status: range ? 206 : 200, headers });
  }
  c.env.outgoing.writeHead(range ? 206 : 200, headers);
  await pipeline(Readable.from(body), c.env.outgoing).catch(() => undefined);
  return RESPONSE_ALREADY_SENT;
}

export const objectRoutes: RouteSpec<ProviderService<StorageObjects, typeof StorageDetailsSchema>>[] = [
  {
    method: 'PUT',
    path: '/omp/objects',
    summary:
      'uploads an object (a storage node): 201 { cid, size, mediaType, format }; 413, 415 unsupported_format, 507 capacity_exceeded',
    handler: (c, service) => upload(c as NodeContext, service),
  },
  {
    method: 'GET',
    path: '/ipfs/:cid',
    summary: 'an object by CID, as an IPFS path gateway (HEAD too): Range (206/416), ETag/304, ?format=car',
    handler: (c, service) => retrieve(c as NodeContext, service),
  },
];
