import { useEffect, useState } from 'preact/hooks';

export type Loaded<T> =
  | { readonly state: 'loading' }
  | { readonly state: 'done'; readonly value: T }
  | { readonly state: 'failed'; readonly message: string };

/** What `load` gives for `key`, loaded again when the key changes; its error's message (the node's words) on failure. */
export function useLoad<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let current = true;
    setLoaded({ state: 'loading' });
    load().then(
      (value) => current && setLoaded({ state: 'done', value }),
      (error: unknown) => current && setLoaded({ state: 'failed', message: describe(error) }),
    );
    return () => {
      current = false;
    };
  }, [key]);
  return loaded;
}

/** An RPC error's reason when it has one (`not_found: no block 99`), else its message. */
export function describe(error: unknown): string {
  const data = (error as { data?: { reason?: string } }).data;
  return data?.reason ? `${(error as Error).message}: ${data.reason}` : (error as Error).message;
}

/** What `load` gives, read again `everyMs` after each answer; the last answer stays on screen while the next one loads. */
export function usePolled<T>(load: () => Promise<T>, everyMs: number): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  usePoll(
    load,
    everyMs,
    (value) => setLoaded({ state: 'done', value }),
    (error) => setLoaded({ state: 'failed', message: describe(error) }),
  );
  return loaded;
}

/**
 * Calls `load` while the component is mounted, again `everyMs` after each answer (never two at once),
 * and hands each answer or error on; nothing arrives after unmount.
 */
export function usePoll<T>(
  load: () => Promise<T>,
  everyMs: number,
  onValue: (value: T) => void,
  onError: (error: unknown) => void = () => undefined,
): void {
  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = (): void => {
      load()
        .then(
          (value) => current && onValue(value),
          (error: unknown) => current && onError(error),
        )
        .finally(() => {
          if (current) timer = setTimeout(read, everyMs);
        });
    };
    read();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, []);
}
