import { open } from 'node:fs/promises';

/** A rename (or a new file) is durable once its directory is synced. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
