import type { Loaded } from './load.js';

/** What a page shows until its record is here: that it is loading, or the node's reason it could not be. */
export function NotLoaded({ loaded, what }: { loaded: Exclude<Loaded<unknown>, { state: 'done' }>; what: string }) {
  return loaded.state === 'loading' ? (
    <p>Loading {what}…</p>
  ) : (
    <p class="error" role="alert">
      {loaded.message}
    </p>
  );
}
