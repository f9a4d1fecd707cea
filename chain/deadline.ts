/** A moment on the chain: a height and a block time (ms). */
export interface Deadline {
  readonly height: number;
  readonly time: number;
}

/**
 * A deadline at least `blocks` blocks and `ms` of block time away: very short blocks do not shrink it
 * below the time a provider needs, long blocks not below the block count. Block times are in the
 * headers, so every node agrees on when it has passed.
 */
export function deadlineAfter(
  now: { readonly height: number; readonly timestamp: number },
  window: { readonly blocks: number; readonly ms: number },
): Deadline {
  return { height: now.height + window.blocks, time: now.timestamp + window.ms };
}

export function isPast(now: { readonly height: number; readonly timestamp: number }, deadline: Deadline): boolean {
  return now.height > deadline.height && now.timestamp > deadline.time;
}

/**
 * Whether `now` is the deadline's block or later: the last block in which what the deadline allows may
 * still land (it is not past yet), so what waits for the window to close can settle at its end.
 */
export function isReached(now: { readonly height: number; readonly timestamp: number }, deadline: Deadline): boolean {
  return now.height >= deadline.height && now.timestamp >= deadline.time;
}

export const describeDeadline = (deadline: Deadline): string =>
  `block ${deadline.height} (and ${new Date(deadline.time).toISOString()})`;
