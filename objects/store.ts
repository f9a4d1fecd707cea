import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { syncDirectory } from '../kernel/storage/sync-directory.js';
import { join } from 'node:path';
import { toHex } from '../sdk/bytes.js';
import type { Logger } from '../kernel/log.js';
import type { Table } from '../kernel/storage/layout.js';
import { ingest, type IngestRules } from './ingest.js';
import type { DagNodes } from './profile.js';
import type { MediaFormat } from './sniff.js';

/** What a node keeps of an object besides its bytes (the file `blobs/<cid>`). */
export interface ObjectRecord {
  readonly cid: string;
  readonly size: number;
  readonly mediaType: string;
  readonly format: MediaFormat;
  readonly root: Uint8Array;
  readonly pieceRoots: Uint8Array;
  readonly nodes: DagNodes;
  /** Unix ms it was stored. */
  readonly storedAt: number;
}

/** What the node keeps in memory of each object (its commitment root as 0x hex). */
export type ObjectSummary = Pick<ObjectRecord, 'cid' | 'size' | 'mediaType' | 'format' | 'storedAt'> & {
  readonly root: string;
};

/** Object files kept open for reads, the most recently read. */
const MAX_OPEN_READERS = 64;

/** Disk space an upload leaves free, whatever the declared capacity: the node's database needs room too. */
const DISK_RESERVE_BYTES = 256 * 1_048_576;

export interface StoreLimits {
  readonly maxBytes: number;
  readonly capacityBytes: number;
  readonly formats: readonly MediaFormat[];
  readonly declaredType?: string;
}

/**
 * Objects on disk under `dir`: bytes in `blobs/<cid>`, uploads in flight in `staging/`, metadata in a
 * table. An upload is written to staging, synced, renamed into `blobs/` and only then recorded, so a
 * crash at any point leaves either no object (the staging file or an unrecorded blob is removed at
 * the next start) or a whole one.
 */
export class ObjectStore {
  private readonly summaries = new Map<string, ObjectSummary>();
  private readonly inFlight = new Map<string, number>();
  private readonly handles = new Map<string, Promise<FileHandle>>();
  private usedBytes = 0;
  private readonly blobs: string;
  private readonly staging: string;

  constructor(
    dir: string,
    private readonly table: Table<string, ObjectRecord>,
    private readonly log: Logger,
  ) {
    this.blobs = join(dir, 'blobs');
    this.staging = join(dir, 'staging');
  }

  /** Loads the records and clears what a crash left: partial uploads, blobs never recorded, records without a blob. */
  async open(): Promise<void> {
    mkdirSync(this.blobs, { recursive: true });
    rmSync(this.staging, { recursive: true, force: true });
    mkdirSync(this.staging, { recursive: true });
    const files = new Set(readdirSync(this.blobs));
    for await (const [cid, record] of this.table.entries()) {
      if (!files.delete(cid)) {
        this.log.error({ cid }, `object ${cid} is recorded but its file is gone; dropping the record`);
        await this.table.delNow(cid);
        continue;
      }
      this.remember(record);
    }
    for (const orphan of files) {
      this.log.warn(
        { file: orphan },
        'removing an object file that was never recorded (an upload cut off before it was acknowledged)',
      );
      rmSync(join(this.blobs, orphan), { force: true });
    }
  }

  usage(): { usedBytes: number; objects: number; stagedBytes: number } {
    let stagedBytes = 0;
    for (const bytes of this.inFlight.values()) stagedBytes += bytes;
    return { usedBytes: this.usedBytes, objects: this.summaries.size, stagedBytes };
  }

  summary(cid: string): ObjectSummary | undefined {
    return this.summaries.get(cid);
  }

  list(): ObjectSummary[] {
    return [...this.summaries.values()];
  }

  record(cid: string): Promise<ObjectRecord | undefined> {
    return this.summaries.has(cid) ? this.table.get(cid) : Promise.resolve(undefined);
  }

  path(cid: string): string {
    return join(this.blobs, cid);
  }

  /**
   * An open handle on an object's file, kept for the next reads (a small range then costs one read,
   * not an open, a read and a close). Reads through it must give their position; the store closes it.
   */
  async reader(cid: string): Promise<FileHandle> {
    const cached = this.handles.get(cid);
    if (cached) {
      // Most recently used last, so the oldest goes first when the cache is full.
      this.handles.delete(cid);
      this.handles.set(cid, cached);
      return cached;
    }
    const opening = open(this.path(cid), 'r');
    this.handles.set(cid, opening);
    if (this.handles.size > MAX_OPEN_READERS) {
      const [oldest, handle] = this.handles.entries().next().value as [string, Promise<FileHandle>];
      this.handles.delete(oldest);
      void handle.then((h) => h.close()).catch(() => undefined);
    }
    return opening.catch((error: unknown) => {
      this.handles.delete(cid);
      throw error;
    });
  }

  /**
   * Reads up to `length` bytes of an object at `position` into `buffer` through its cached handle;
   * a handle closed between two reads (evicted from the cache) is opened again.
   */
  async readAt(cid: string, buffer: Buffer, length: number, position: number): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const handle = await this.reader(cid);
      try {
        return (await handle.read(buffer, 0, length, position)).bytesRead;
      } catch (error) {
        // A closed handle has already left the cache: the next reader() opens the file again.
        if (attempt > 0 || (error as NodeJS.ErrnoException).code !== 'EBADF') throw error;
      }
    }
  }

  /** Closes the cached handles (at stop). */
  async close(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(handles.map((h) => h.then((handle) => handle.close()).catch(() => undefined)));
  }

  /** Stores an upload; an object already held is not stored twice (`created: false`). */
  async put(
    body: AsyncIterable<Uint8Array>,
    limits: StoreLimits,
  ): Promise<{ summary: ObjectSummary; created: boolean }> {
    const id = randomBytes(12).toString('hex');
    const partial = join(this.staging, `${id}.part`);
    const diskFree = freeBytes(this.staging) - DISK_RESERVE_BYTES;
    const rules: IngestRules = {
      maxBytes: limits.maxBytes,
      formats: limits.formats,
      ...(limits.declaredType ? { declaredType: limits.declaredType } : {}),
      room: (received) => {
        this.inFlight.set(id, received);
        const others = this.usage().stagedBytes - received;
        return Math.min(limits.capacityBytes - this.usedBytes - others, diskFree - others);
      },
    };
    const file = await open(partial, 'wx');
    try {
      const ingested = await ingest(body, file, rules);
      await file.sync();
      await file.close();
      const known = this.summaries.get(ingested.cid);
      if (known) {
        await unlink(partial);
        return { summary: known, created: false };
      }
      await rename(partial, this.path(ingested.cid));
      await syncDirectory(this.blobs);
      const record: ObjectRecord = { ...ingested, storedAt: Date.now() };
      await this.table.putNow(record.cid, record);
      this.remember(record);
      return { summary: this.summaries.get(record.cid)!, created: true };
    } catch (error) {
      await file.close().catch(() => undefined);
      await unlink(partial).catch(() => undefined);
      throw error;
    } finally {
      this.inFlight.delete(id);
    }
  }

  async remove(cid: string): Promise<void> {
    const summary = this.summaries.get(cid);
    if (!summary) return;
    await this.table.delNow(cid);
    this.summaries.delete(cid);
    this.usedBytes -= summary.size;
    const handle = this.handles.get(cid);
    this.handles.delete(cid);
    await handle?.then((h) => h.close()).catch(() => undefined);
    rmSync(this.path(cid), { force: true });
  }

  private remember(record: ObjectRecord): void {
    this.summaries.set(record.cid, {
      cid: record.cid,
      size: record.size,
      mediaType: record.mediaType,
      format: record.format,
      storedAt: record.storedAt,
      root: toHex(record.root),
    });
    this.usedBytes += record.size;
  }
}

function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return Number(stats.bavail) * Number(stats.bsize);
}
