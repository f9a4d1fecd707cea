import { pino, type DestinationStream } from 'pino';

/** Most bytes of log lines held for a stdout that is not being read; past it lines are dropped, not the node stalled. */
const MAX_PENDING_LOG_BYTES = 16 * 1024 * 1024;

/**
 * A node's stdout for its logs, written asynchronously: a reader that stops reading (a full pipe)
 * must not stall the node, as a synchronous write would. What is pending is written out at exit (a
 * fatal error's line included), retrying only until the exit: a reader gone for good costs the lines,
 * not the exit.
 */
export function stdoutDestination(): DestinationStream {
  let exiting = false;
  const destination = pino.destination({
    fd: 1,
    sync: false,
    maxLength: MAX_PENDING_LOG_BYTES,
    retryEAGAIN: () => !exiting,
  });
  process.once('exit', () => {
    exiting = true;
    try {
      destination.flushSync();
    } catch {
      // stdout is closed or full for good: nothing more to do at exit.
    }
  });
  return destination;
}
