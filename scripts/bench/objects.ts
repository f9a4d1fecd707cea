// Objects: upload (with CID, commitment and sniffing) and download/ranged reads on a storage node,
// each against a bare node:http server doing only the disk part (PUT piped to a file; GET piped
// from createReadStream with a Range), each in its own process, same machine, same client, same run;
// and storage proofs of a 1 GiB object. BENCH_OBJECT_MIB (default 256) per object, BENCH_OBJECTS
// (default 4). One JSON line.
//
// The two servers take turns, and each turn of the node is compared with the ceiling's turn next to
// it: the ratio reported is the median of those paired ratios (with their range), as this machine's
// speed drifts within a run by more than the gaps measured.
import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { open } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CommitmentBuilder, PIECE_BYTES, proveSegment, segmentCount, verifySegment } from '../../objects/commitment.js';
import { devnetKey, SvcClient, UNIT } from '../../sdk/index.js';
import { benchDir, cleanUp, startNode } from './node-process.js';

const OBJECT_MIB = Number(process.env.BENCH_OBJECT_MIB ?? 256);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 4);
const RANGES = 2000;
/** Ranges are compared in blocks of this many (each block one paired ratio). */
const RANGE_BLOCK = 100;
const DOWNLOAD_ROUNDS = 5;
const RANGE_BYTES = 65_536;
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

/** A PNG of random pixels (one IDAT chunk): a new one each time, as a node keeps one copy of equal bytes. */
function mediaFile(dir: string, i: number): string {
  const path = join(dir, `object-${i}.png`);
  const data = OBJECT_MIB * 1_048_576 - PNG_HEAD.length - 12 - 12;
  const idat = Buffer.alloc(8);
  idat.writeUInt32BE(data, 0);
  idat.write('IDAT', 4);
  const out = Buffer.concat([
    PNG_HEAD,
    idat,
    randomBytes(data),
    Buffer.alloc(4),
    Buffer.from('00000000IEND', 'latin1').fill(0, 0, 4),
    Buffer.from('ae426082', 'hex'),
  ]);
  writeFileSync(path, out);
  return path;
}

/** PUTs a file, streamed; resolves with the response body. */
function put(url: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'PUT', headers: { 'content-length': statSync(file).size, 'content-type': 'image/png' } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () =>
          res.statusCode! < 300 ? resolve(body) : reject(new Error(`PUT ${url}: ${res.statusCode} ${body}`)),
        );
      },
    );
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

/** GETs and discards; resolves with bytes read and the time to the first byte (ms). */
function get(url: string, range?: string): Promise<{ bytes: number; firstByteMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteMs = -1;
    const req = request(url, { headers: range ? { range } : {} }, (res: IncomingMessage) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - started;
        bytes += d.length;
      });
      res.on('end', () =>
        res.statusCode! < 300 ? resolve({ bytes, firstByteMs }) : reject(new Error(`GET ${url}: ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The bare ceiling (scripts/bench/object-ceiling.ts), as a process of its own like the node. */
function ceiling(dir: string): Promise<{ url: string; close: () => void }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./object-ceiling.js', import.meta.url)), dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout!.on('data', (d: Buffer) => {
      const port = /listening (\d+)/.exec(d.toString())?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}`, close: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`object ceiling exited with ${code}`)));
  });
}

const pct = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

/** Paired ratios (ceiling time over node time: the node's speed as a share of the ceiling's). */
const ratios = (
  pairs: Array<{ ceilMs: number; svcMs: number }>,
): { median: number; min: number; max: number; pairs: number } => {
  const values = pairs.map(({ ceilMs, svcMs }) => ceilMs / svcMs);
  return { median: pct(values, 0.5), min: Math.min(...values), max: Math.max(...values), pairs: values.length };
};

async function proofs(
  dir: string,
): Promise<{ proveMs: { p50: number; p99: number }; verifyMs: { p50: number; p99: number }; proofBytes: number }> {
  const size = 1024 * 1_048_576;
  const path = join(dir, 'one-gib');
  const builder = new CommitmentBuilder();
  const out = await open(path, 'w');
  for (let at = 0; at < size; at += PIECE_BYTES) {
    const piece = randomBytes(PIECE_BYTES);
    builder.update(piece);
    await out.write(piece);
  }
  await out.close();
  const { root, pieceRoots } = builder.finish();
  const file = await open(path, 'r');
  const prove: number[] = [];
  const verify: number[] = [];
  let proofBytes = 0;
  for (let i = 0; i < 200; i++) {
    const index = Math.floor(Math.random() * segmentCount(size));
    const started = performance.now();
    // What a provider does: read the segment's piece, then build the path.
    const piece = Buffer.alloc(PIECE_BYTES);
    const pieceIndex = Math.floor(index / 256);
    const { bytesRead } = await file.read(piece, 0, PIECE_BYTES, pieceIndex * PIECE_BYTES);
    const proof = proveSegment(index, piece.subarray(0, bytesRead), pieceRoots);
    prove.push(performance.now() - started);
    const checked = performance.now();
    if (!verifySegment(root, size, proof)) throw new Error('a proof did not verify');
    verify.push(performance.now() - checked);
    proofBytes = proof.segment.length + 32 * proof.path.length + 8;
  }
  await file.close();
  rmSync(path);
  return {
    proveMs: { p50: pct(prove, 0.5), p99: pct(prove, 0.99) },
    verifyMs: { p50: pct(verify, 0.5), p99: pct(verify, 0.99) },
    proofBytes,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-objects-'));
try {
  const ceil = await ceiling(dir);
  const nodeDir = benchDir();
  writeFileSync(
    join(nodeDir, 'config.json'),
    JSON.stringify({ 'omp-storage': { maxObjectBytes: 4 * 1024 * 1_048_576 } }),
  );
  const node = await startNode([
    '--role',
    'validator',
    '--data-dir',
    nodeDir,
    '--config',
    join(nodeDir, 'config.json'),
  ]);
  const client = new SvcClient(node.url);
  const operator = (await client.nodeInfo()).operator;
  await client.waitForTransaction((await client.transfer(devnetKey('account', 0), operator, 'OGT', 1000n * UNIT)).hash);
  await client.ompRegisterStorageNode({
    operator,
    storage_capacity_gb: 100,
    bond_ogt: 500,
    supported_formats: ['image'],
  });
  while ((await client.ompStorageStatus()).status !== 'active')
    await new Promise((resolve) => setTimeout(resolve, 100));

  const files = Array.from({ length: OBJECTS }, (_, i) => mediaFile(dir, i));
  const bytes = OBJECTS * OBJECT_MIB * 1_048_576;
  // Alternating, so both see the same machine: ceiling, svc-node, ceiling, svc-node, ...
  const uploads: Array<{ ceilMs: number; svcMs: number }> = [];
  const cids: string[] = [];
  for (const [i, file] of files.entries()) {
    let started = performance.now();
    await put(`${ceil.url}/objects/${i}`, file);
    const ceilMs = performance.now() - started;
    started = performance.now();
    cids.push((JSON.parse(await put(`${node.url}/omp/objects`, file)) as { cid: string }).cid);
    uploads.push({ ceilMs, svcMs: performance.now() - started });
  }
  const downloads: Array<{ ceilMs: number; svcMs: number }> = [];
  // One unmeasured read of each object from each server first: both measured at their steady pace.
  for (const [i, cid] of cids.entries()) {
    await get(`${ceil.url}/objects/${i}`);
    await get(`${node.url}/ipfs/${cid}`);
  }
  for (let round = 0; round < DOWNLOAD_ROUNDS; round++) {
    for (const [i, cid] of cids.entries()) {
      let started = performance.now();
      await get(`${ceil.url}/objects/${i}`);
      const ceilMs = performance.now() - started;
      started = performance.now();
      await get(`${node.url}/ipfs/${cid}`);
      downloads.push({ ceilMs, svcMs: performance.now() - started });
    }
  }
  const size = OBJECT_MIB * 1_048_576;
  const ceilTtfb: number[] = [];
  const svcTtfb: number[] = [];
  const rangeBlocks: Array<{ ceilMs: number; svcMs: number }> = [];
  for (let i = 0; i < RANGES; i++) {
    if (i % RANGE_BLOCK === 0) rangeBlocks.push({ ceilMs: 0, svcMs: 0 });
    const block = rangeBlocks.at(-1)!;
    const start = Math.floor(Math.random() * (size - RANGE_BYTES));
    const range = `bytes=${start}-${start + RANGE_BYTES - 1}`;
    const which = i % OBJECTS;
    let started = performance.now();
    ceilTtfb.push((await get(`${ceil.url}/objects/${which}`, range)).firstByteMs);
    block.ceilMs += performance.now() - started;
    started = performance.now();
    svcTtfb.push((await get(`${node.url}/ipfs/${cids[which]}`, range)).firstByteMs);
    block.svcMs += performance.now() - started;
  }
  ceil.close();
  for (const file of files) rmSync(file);
  const sum = (pairs: Array<{ ceilMs: number; svcMs: number }>, key: 'ceilMs' | 'svcMs'): number =>
    pairs.reduce((total, pair) => total + pair[key], 0);
  const mbps = (ms: number): number => bytes / 1_048_576 / (ms / 1000);
  const rangeMbps = (ms: number): number => (RANGES * RANGE_BYTES) / 1_048_576 / (ms / 1000);
  process.stdout.write(
    `${JSON.stringify({
      objectMiB: OBJECT_MIB,
      objects: OBJECTS,
      upload: {
        svcMBps: mbps(sum(uploads, 'svcMs')),
        ceilingMBps: mbps(sum(uploads, 'ceilMs')),
        ratio: ratios(uploads),
      },
      download: {
        svcMBps: mbps(sum(downloads, 'svcMs') / DOWNLOAD_ROUNDS),
        ceilingMBps: mbps(sum(downloads, 'ceilMs') / DOWNLOAD_ROUNDS),
        ratio: ratios(downloads),
      },
      ranges: {
        count: RANGES,
        bytes: RANGE_BYTES,
        svcMBps: rangeMbps(sum(rangeBlocks, 'svcMs')),
        ceilingMBps: rangeMbps(sum(rangeBlocks, 'ceilMs')),
        ratio: ratios(rangeBlocks),
        svcTtfbP99Ms: pct(svcTtfb, 0.99),
        ceilingTtfbP99Ms: pct(ceilTtfb, 0.99),
        svcTtfbP50Ms: pct(svcTtfb, 0.5),
      },
      proofs: await proofs(dir),
    })}\n`,
  );
} catch (error) {
  process.stderr.write(`objects: ${(error as Error).stack}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
  rmSync(dir, { recursive: true, force: true });
}
