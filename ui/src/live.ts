import { useEffect } from 'preact/hooks';

/** What a live effect's work sees: whether its component is still shown, and how to end what it started. */
export interface Live {
  readonly active: boolean;
  /** Runs `end` when the component goes (at once if it has gone): a subscription must not outlive its page. */
  onEnd(end: () => void): void;
}

/**
 * An effect whose work reads and subscribes asynchronously, ended with its component (or when `deps`
 * change): `live.active` turns false and what it registered with `live.onEnd` runs, so a visitor
 * moving between pages does not pile subscriptions up on the node. A failure while still active goes
 * to `failed`.
 */
export function useLive(
  work: (live: Live) => Promise<void>,
  deps: readonly unknown[],
  failed: (error: unknown) => void = () => undefined,
): void {
  useEffect(() => {
    let active = true;
    const ends: (() => void)[] = [];
    const live: Live = {
      get active() {
        return active;
      },
      onEnd(end) {
        if (active) ends.push(end);
        else end();
      },
    };
    work(live).catch((error: unknown) => {
      if (active) failed(error);
    });
    return () => {
      active = false;
      for (const end of ends.splice(0)) end();
    };
  }, deps);
}
