import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { protectedUrl, token } from './node.js';

/** A URL an element can load `path` from (see protectedUrl); undefined until it is ready, when it could not be had, or with no path. */
export function useProtectedUrl(path: string | undefined): string | undefined {
  const [url, setUrl] = useState<string | undefined>(token ? undefined : path);
  useEffect(() => {
    if (path === undefined) return;
    let current = true;
    let revoke = (): void => undefined;
    protectedUrl(path).then(
      (made) => {
        revoke = made.revoke;
        if (current) setUrl(made.url);
        else made.revoke();
      },
      () => current && setUrl(undefined),
    );
    return () => {
      current = false;
      revoke();
    };
  }, [path]);
  return url;
}

/** A link to a route of the node that also works under guardrails: with a token, the bytes are fetched with it when clicked. */
export function ProtectedLink({ path, children }: { path: string; children: ComponentChildren }) {
  const open = async (event: Event): Promise<void> => {
    if (!token) return;
    event.preventDefault();
    const made = await protectedUrl(path);
    window.open(made.url, '_blank');
    setTimeout(made.revoke, 60_000);
  };
  return (
    <a href={path} onClick={(event) => void open(event)}>
      {children}
    </a>
  );
}
