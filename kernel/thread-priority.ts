import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's scheduling priority (Linux: `setpriority` on the thread id). Background
 * workers call it so that, when the cores are busy, the main thread — which answers RPC — runs first
 * and the workers take what is left. Does nothing where thread ids are not available.
 */
export function lowerThreadPriority(niceness = 5): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, niceness);
  } catch {
    // Not Linux, or not permitted: the thread keeps the process's priority.
  }
}
