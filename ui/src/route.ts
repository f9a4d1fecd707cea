import { useEffect, useState } from 'preact/hooks';

/** Pages by the location's hash (`#/block/12`), so the node serves one file and links stay shareable. */
export type Route =
  | { readonly page: 'home' }
  | { readonly page: 'block'; readonly id: string }
  | { readonly page: 'tx'; readonly hash: string }
  | { readonly page: 'account'; readonly address: string }
  | { readonly page: 'faucet' };

export function parseRoute(hash: string): Route {
  const [, page, id] = /^#\/([a-z]+)(?:\/(.+))?$/.exec(hash) ?? [];
  const value = id ? decodeURIComponent(id) : '';
  if (page === 'block' && value) return { page, id: value };
  if (page === 'tx' && value) return { page, hash: value };
  if (page === 'account' && value) return { page, address: value };
  if (page === 'faucet') return { page };
  return { page: 'home' };
}

export const href = {
  block: (id: number | string): string => `#/block/${encodeURIComponent(String(id))}`,
  tx: (hash: string): string => `#/tx/${encodeURIComponent(hash)}`,
  account: (address: string): string => `#/account/${encodeURIComponent(address)}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
