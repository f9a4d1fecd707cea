import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long long work may hold the event loop before it lets waiting requests in. */
export const DEFAULT_SLICE_MS = 2;

/**
 * Long work on the event loop (executing a batch of work, hashing, staging writes) pauses once
 * it has held the loop for a slice of time, so RPC requests are answered in between instead of after
 * the whole of it. Measured in time, not steps: a step's cost varies with the kind of work and
 * with how busy the machine is.
 */
export class Pacer {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs: number = DEFAULT_SLICE_MS) {}

  /**
   * Call once per step: undefined while the slice lasts, else a promise of the next turn of the loop.
   * Await only a promise (`const pause = pacer.step(); if (pause) await pause;`): awaiting undefined
   * still suspends the caller for a microtask, per step of work that has thousands.
   */
  step(): Promise<void> | undefined {
    const now = performance.now();
    if (now - this.sliceStart < this.sliceMs) return undefined;
    return nextTurn().then(() => {
      this.sliceStart = performance.now();
    });
  }
}
