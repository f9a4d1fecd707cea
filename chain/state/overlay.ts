import type { StateChanges } from './world-state.js';

export interface StateReader {
  get(key: string): Uint8Array | undefined;
}

/** Uncommitted writes over a reader; a child overlay is discarded or merged into its parent as a whole. */
export class StateOverlay implements StateReader {
  private readonly writes = new Map<string, Uint8Array | undefined>();

  constructor(private readonly base: StateReader) {}

  get(key: string): Uint8Array | undefined {
    return this.writes.has(key) ? this.writes.get(key) : this.base.get(key);
  }

  set(key: string, value: Uint8Array): void {
    if (value.length === 0) throw new Error(`state values must not be empty (key ${key})`);
    this.writes.set(key, value);
  }

  delete(key: string): void {
    this.writes.set(key, undefined);
  }

  child(): StateOverlay {
    return new StateOverlay(this);
  }

  /** Moves this overlay's writes into `parent` (which must be its base). */
  mergeInto(parent: StateOverlay): void {
    for (const [key, value] of this.writes) parent.writes.set(key, value);
  }

  /**
   * What these writes change in the base: all of them but the deletions of keys the base does not
   * have (a key written and deleted again, such as an index a block fills and drains), which would
   * only cost history and storage writes.
   */
  get changes(): StateChanges {
    const net = new Map<string, Uint8Array | undefined>();
    for (const [key, value] of this.writes)
      if (value !== undefined || this.base.get(key) !== undefined) net.set(key, value);
    return net;
  }
}
