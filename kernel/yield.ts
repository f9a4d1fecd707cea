import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long work on the event loop (executing a block, staging its writes) pauses at every `every`
 * steps, so RPC requests are answered in between instead of after the whole block.
 */
export class Pacer {
  private count = 0;

  constructor(private readonly every: number) {}

  /** Call once per step; resolves at once, or on the next turn of the loop every `every` steps. */
  step(): Promise<void> | undefined {
    if (++this.count % this.every !== 0) return undefined;
    return nextTurn();
  }
}
