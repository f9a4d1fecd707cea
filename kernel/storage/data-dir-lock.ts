import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the data dir for this process: `node.lock` created exclusively, holding our pid. A lock
 * whose process is gone (a crash, a SIGKILL) is stale and taken over; RocksDB's own LOCK file
 * guards the database as a second line.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'node.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      heldHere.add(path);
      return {
        path,
        release() {
          if (!heldHere.delete(path)) return;
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = Number.NaN;
    try {
      holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
    } catch {
      // removed between our open and read: try again
    }
    const heldByUs = holder === process.pid && heldHere.has(path);
    if (heldByUs || (Number.isInteger(holder) && holder !== process.pid && isAlive(holder))) {
      throw new DataDirLockedError(
        `--data-dir ${dataDir}: in use by another svc-node (pid ${holder}); two nodes must not share a data dir`,
      );
    }
    rmSync(path, { force: true });
  }
  throw new DataDirLockedError(`--data-dir ${dataDir}: could not take ${path}`);
}
