import { open } from 'node:fs/promises';

/** Makes a rename (or a create or unlink) in `dir` durable: the directory's entry is on disk once this returns. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
