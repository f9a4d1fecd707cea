import type { ComponentChildren } from 'preact';
import type { Loaded } from './load.js';

/** What a page shows until its record is here: that it is loading, or the node's reason it could not be. */
export function NotLoaded({ loaded, what }: { loaded: Exclude<Loaded<unknown>, { state: 'done' }>; what: string }) {
  return loaded.state === 'loading' ? <p>Loading {what}…</p> : <Alert>{loaded.message}</Alert>;
}

/** A refusal or failure the reader must see: announced to screen readers as it appears. */
export function Alert({ id, children }: { id?: string; children: ComponentChildren }) {
  return (
    <p id={id} class="error" role="alert">
      {children}
    </p>
  );
}
