import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../../kernel/log.js';
import {
  chunkDigest,
  chunkState,
  decodeManifest,
  encodeManifest,
  SnapshotError,
  type SnapshotManifest,
} from './format.js';

/** A snapshot a node holds, as it offers it to peers. */
export interface SnapshotOffer {
  readonly height: number;
  readonly blockHash: string;
  readonly chunks: number;
}

/** What the chain hands over at a snapshot height: the state after that block, and its bucket hashes. */
export interface StateCapture {
  readonly height: number;
  readonly blockHash: string;
  readonly stateRoot: string;
  readonly state: ReadonlyMap<string, Uint8Array>;
  readonly buckets: readonly Uint8Array[];
}

/**
 * Snapshots on disk, under `<data dir>/snapshots/<height>/` (`manifest` and `chunk-<i>`), each written
 * under a temporary name and renamed whole, the oldest removed past `keep`. Writing happens off the
 * chain's turn, a chunk at a time.
 */
export class SnapshotStore {
  private readonly dir: string;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly keep: number,
    private readonly log: Logger,
  ) {
    this.dir = join(dataDir, 'snapshots');
  }

  /** Writes a snapshot of `capture` after the ones being written; resolves when it is on disk. */
  take(capture: StateCapture): Promise<void> {
    this.writing = this.writing
      .then(() => this.write(capture))
      .catch((error: unknown) => {
        this.log.error({ err: error, height: capture.height }, 'writing a state snapshot failed');
      });
    return this.writing;
  }

  private async write(capture: StateCapture): Promise<void> {
    const started = performance.now();
    const { manifest, chunks } = chunkState(capture, capture.state, capture.buckets);
    const final = join(this.dir, String(capture.height));
    const temp = `${final}.partial`;
    await rm(temp, { recursive: true, force: true });
    await mkdir(temp, { recursive: true });
    for (const [i, chunk] of chunks.entries()) {
      await writeFile(join(temp, `chunk-${i}`), chunk);
      await nextTurn();
    }
    await writeFile(join(temp, 'manifest'), encodeManifest(manifest));
    await rm(final, { recursive: true, force: true });
    await rename(temp, final);
    const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    this.log.info(
      {
        height: capture.height,
        keys: capture.state.size,
        chunks: chunks.length,
        bytes,
        ms: Math.round(performance.now() - started),
      },
      `state snapshot of block ${capture.height}: ${capture.state.size} keys in ${chunks.length} chunks`,
    );
    const heights = await this.heights();
    for (const old of heights.slice(0, Math.max(0, heights.length - this.keep)))
      await rm(join(this.dir, String(old)), { recursive: true, force: true });
  }

  /** Heights of the snapshots on disk, oldest first. */
  async heights(): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    return names
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
  }

  /** What this node offers: every snapshot on disk, newest first. */
  async offers(): Promise<SnapshotOffer[]> {
    const offers: SnapshotOffer[] = [];
    for (const height of (await this.heights()).reverse()) {
      const manifest = await this.manifest(height).catch(() => undefined);
      if (manifest) offers.push({ height, blockHash: manifest.blockHash, chunks: manifest.chunks.length });
    }
    return offers;
  }

  async manifest(height: number): Promise<SnapshotManifest | undefined> {
    try {
      return decodeManifest(await readFile(join(this.dir, String(height), 'manifest')));
    } catch {
      return undefined;
    }
  }

  /** A chunk's bytes as written (checked against the manifest's digest: a damaged file is never sent). */
  async chunk(height: number, index: number): Promise<Uint8Array | undefined> {
    const manifest = await this.manifest(height);
    const info = manifest?.chunks[index];
    if (!info) return undefined;
    const bytes = await readFile(join(this.dir, String(height), `chunk-${index}`)).catch(() => undefined);
    if (!bytes) return undefined;
    if (chunkDigest(bytes) !== info.digest)
      throw new SnapshotError(`snapshot ${height}: chunk ${index} on disk is damaged (its digest changed)`);
    return bytes;
  }

  /** Resolves when every snapshot asked for is on disk. */
  idle(): Promise<void> {
    return this.writing;
  }
}
