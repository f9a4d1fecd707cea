import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { CarReader } from '@ipld/car';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { sha256 } from 'multiformats/hashes/sha2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetKey, SvcClient, UNIT } from '../../sdk/index.js';
import { media } from '../helpers/media.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';
import { referenceCid } from '../helpers/unixfs-reference.js';
import { plainDevnet } from '../helpers/plain-devnet.js';

// One validator node that registers as a storage provider of images and documents with 20 MB of
// capacity, and takes objects of at most 8 MiB.
let node: TestNode;
let client: SvcClient;
const MAX_OBJECT = 8 * 1_048_576;

beforeAll(async () => {
  node = await startTestNode({ ...plainDevnet(), 'omp-storage': { maxObjectBytes: MAX_OBJECT } });
  client = new SvcClient(node.url);
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

async function register(): Promise<void> {
  const operator = node.node.keys.operator.address;
  await client.waitForTransaction((await client.transfer(devnetKey('account', 3), operator, 'OGT', 1000n * UNIT)).hash);
  await client.ompRegisterStorageNode({
    operator,
    storage_capacity_gb: 0.02,
    bond_ogt: 500,
    supported_formats: ['image', 'document'],
  });
  await waitFor(
    () => client.ompStorageStatus(),
    (status) => status.status === 'active',
    20_000,
    'the registration to be mined',
  );
}

const put = (body: Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${node.url}/omp/objects`, { method: 'PUT', body, headers, duplex: 'half' } as RequestInit);

/** A body streamed in chunks with no Content-Length. */
function streamOf(bytes: Uint8Array, chunk = 256 * 1024): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + chunk));
      at += chunk;
    },
  });
}

const stagingFiles = (): string[] => readdirSync(join(node.dataDir, 'objects', 'staging'));

describe('media objects on a storage node', () => {
  it('refuses uploads until the node is an active storage provider', async () => {
    const response = await put(media.png(1000));
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: 'not_a_provider' });
    await register();
  });

  const image = media.png(5 * 1_048_576 + 4321);
  let cid: string;

  it('stores an upload under its standard CID, with its sniffed type, and counts it', async () => {
    const response = await put(streamOf(image));
    expect(response.status).toBe(201);
    const body = (await response.json()) as { cid: string; size: number; mediaType: string; format: string };
    cid = body.cid;
    expect(body).toEqual({
      cid: await referenceCid(image),
      size: image.length,
      mediaType: 'image/png',
      format: 'image',
      root: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await client.ompStorageStatus()).toMatchObject({ usedBytes: image.length, objects: 1 });
    // The same bytes again: the object it holds, not a second copy.
    const again = await put(image);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { cid: string }).cid).toBe(cid);
    expect(await client.ompStorageStatus()).toMatchObject({ usedBytes: image.length, objects: 1 });
  });

  it('serves it as an IPFS gateway does: type, nosniff, immutable caching, ETag and 304, HEAD', async () => {
    const response = await fetch(`${node.url}/ipfs/${cid}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toContain('immutable');
    expect(response.headers.get('etag')).toBe(`"${cid}"`);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await response.arrayBuffer()).equals(image)).toBe(true);
    const cached = await fetch(`${node.url}/ipfs/${cid}`, { headers: { 'if-none-match': `"${cid}"` } });
    expect(cached.status).toBe(304);
    const head = await fetch(`${node.url}/ipfs/${cid}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(image.length));
    expect((await fetch(`${node.url}/ipfs/bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku`)).status).toBe(
      404,
    );
    expect((await fetch(`${node.url}/ipfs/not-a-cid`)).status).toBe(400);
  });

  it('answers 1,000 random ranges byte for byte, and 416 past the end', async () => {
    const size = image.length;
    for (let i = 0; i < 1000; i++) {
      const kind = i % 4;
      const a = Math.floor(Math.random() * size);
      const b = a + Math.floor(Math.random() * 300_000);
      const n = 1 + Math.floor(Math.random() * 200_000);
      const [header, first, last] =
        kind === 0
          ? [`bytes=${a}-${b}`, a, Math.min(b, size - 1)]
          : kind === 1
            ? [`bytes=${a}-`, a, size - 1]
            : kind === 2
              ? [`bytes=-${n}`, Math.max(0, size - n), size - 1]
              : [`bytes=${size + Math.floor(Math.random() * 1000)}-`, 0, 0];
      const response = await fetch(`${node.url}/ipfs/${cid}`, { headers: { range: header } });
      if (kind === 3) {
        expect(response.status, header).toBe(416);
        expect(response.headers.get('content-range')).toBe(`bytes */${size}`);
        await response.arrayBuffer();
        continue;
      }
      expect(response.status, header).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${first}-${last}/${size}`);
      expect(Buffer.from(await response.arrayBuffer()).equals(image.subarray(first, last + 1)), header).toBe(true);
    }
  });

  it('exports a CAR that independent code verifies block by block against the CID, and that holds the bytes', async () => {
    const response = await fetch(`${node.url}/ipfs/${cid}?format=car`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/vnd.ipld.car');
    const reader = await CarReader.fromBytes(new Uint8Array(await response.arrayBuffer()));
    expect((await reader.getRoots()).map(String)).toEqual([cid]);
    const leaves: Uint8Array[] = [];
    let blocks = 0;
    for await (const block of reader.blocks()) {
      blocks += 1;
      expect(block.cid.multihash.code).toBe(sha256.code);
      expect(CID.createV1(block.cid.code, await sha256.digest(block.bytes)).equals(block.cid)).toBe(true);
      if (block.cid.code === raw.code) leaves.push(block.bytes);
    }
    expect(blocks).toBe(1 + 6);
    expect(Buffer.concat(leaves).equals(image)).toBe(true);
  });

  it('keeps serving whole bytes when a client leaves part way, and under reads of more objects than it keeps open', async () => {
    // A client that takes the first bytes of a download and goes away.
    await new Promise<void>((resolve, reject) => {
      const req = request(`${node.url}/ipfs/${cid}`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
      req.end();
    });
    expect(Buffer.from(await (await fetch(`${node.url}/ipfs/${cid}`)).arrayBuffer()).equals(image)).toBe(true);
    // 70 objects (the node keeps 64 files open) read at random, 20 at a time: files close under reads.
    const small = Array.from({ length: 70 }, (_, i) => media.png(3000 + i));
    const cids = await Promise.all(
      small.map(async (bytes) => ((await (await put(bytes)).json()) as { cid: string }).cid),
    );
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const which = Math.floor(Math.random() * small.length);
          const start = Math.floor(Math.random() * 2000);
          const response = await fetch(`${node.url}/ipfs/${cids[which]}`, { headers: { range: `bytes=${start}-` } });
          expect(response.status).toBe(206);
          expect(Buffer.from(await response.arrayBuffer()).equals(small[which]!.subarray(start))).toBe(true);
        }),
      );
    }
  });

  it('refuses unsupported, spoofed and other-format types with 415, and keeps nothing of them', async () => {
    const before = await client.ompStorageStatus();
    const elf = await put(media.elf(10_000));
    expect(elf.status).toBe(415);
    expect(await elf.json()).toMatchObject({ error: 'unsupported_format' });
    // Refused after its first 4 KiB while the client still streams 20 MiB: it gets the answer, not a reset connection.
    const streamed = await put(streamOf(media.elf(20 * 1_048_576)));
    expect(streamed.status).toBe(415);
    const spoofed = await put(media.pdf(10_000), { 'content-type': 'image/png' });
    expect(spoofed.status).toBe(415);
    expect(((await spoofed.json()) as { message: string }).message).toMatch(
      /application\/pdf, not the declared image\/png/,
    );
    const video = await put(media.mp4(10_000));
    expect(video.status).toBe(415);
    expect(((await video.json()) as { message: string }).message).toMatch(
      /video \(video\/mp4\) is not among this node's formats: image, document/,
    );
    const pdf = await put(media.pdf(10_000), { 'content-type': 'application/pdf' });
    expect(pdf.status).toBe(201);
    expect(await pdf.json()).toMatchObject({ mediaType: 'application/pdf', format: 'document' });
    expect((await client.ompStorageStatus()).objects).toBe(before.objects + 1);
    expect(stagingFiles()).toEqual([]);
  });

  it('answers 413 over the size limit and 507 over the capacity left, declared or streamed, and stores nothing', async () => {
    const before = await client.ompStorageStatus();
    const tooBig = await put(media.png(MAX_OBJECT + 1));
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ error: 'object_too_large' });
    // 20 MB of capacity, about 5.3 MB used: 7.9 MiB objects fit once, not twice.
    const fits = media.png(7.9 * 1_048_576);
    fits.writeUInt32BE(1, 100);
    expect((await put(fits)).status).toBe(201);
    const declared = media.png(7.9 * 1_048_576);
    declared.writeUInt32BE(2, 100);
    const overDeclared = await put(declared);
    expect(overDeclared.status).toBe(507);
    expect(await overDeclared.json()).toMatchObject({ error: 'capacity_exceeded' });
    const overStreamed = await put(streamOf(declared));
    expect(overStreamed.status).toBe(507);
    const after = await client.ompStorageStatus();
    expect(after.objects).toBe(before.objects + 1);
    expect(after.usedBytes).toBe(before.usedBytes + fits.length);
    expect(stagingFiles()).toEqual([]);
  });
});
