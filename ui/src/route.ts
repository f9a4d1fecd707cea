import { useEffect, useState } from 'preact/hooks';
import { accountAddress, isValidEthAddress } from '../../sdk/index.js';

/** Pages by the location's hash (`#/block/12`), so the node serves one file and links stay shareable. */
export type Route =
  | { readonly page: 'home' }
  | { readonly page: 'block'; readonly id: string }
  | { readonly page: 'tx'; readonly hash: string }
  | { readonly page: 'account'; readonly address: string }
  | { readonly page: 'validators' }
  | { readonly page: 'compute' }
  | { readonly page: 'job'; readonly id: string }
  | { readonly page: 'storage' }
  | { readonly page: 'object'; readonly cid: string }
  | { readonly page: 'node' }
  | { readonly page: 'faucet' };

/** Pages without a record to name, as the navigation lists them. */
export const SECTIONS = [
  ['home', 'Home'],
  ['validators', 'Validators'],
  ['compute', 'Compute'],
  ['storage', 'Storage'],
  ['node', 'Node'],
  ['faucet', 'Faucet'],
] as const;

export function parseRoute(hash: string): Route {
  const [, page, id] = /^#\/([a-z]+)(?:\/(.+))?$/.exec(hash) ?? [];
  const value = id ? decodeURIComponent(id) : '';
  if (page === 'block' && value) return { page, id: value };
  if (page === 'tx' && value) return { page, hash: value };
  // An 0x address names the same account: the page shows it under its svc1 name.
  if (page === 'account' && value) return { page, address: isValidEthAddress(value) ? accountAddress(value) : value };
  if (page === 'job' && value) return { page, id: value };
  if (page === 'object' && value) return { page, cid: value };
  if (page === 'validators' || page === 'compute' || page === 'storage' || page === 'node' || page === 'faucet')
    return { page };
  return { page: 'home' };
}

export const href = {
  section: (page: (typeof SECTIONS)[number][0]): string => (page === 'home' ? '#/' : `#/${page}`),
  block: (id: number | string): string => `#/block/${encodeURIComponent(String(id))}`,
  tx: (hash: string): string => `#/tx/${encodeURIComponent(hash)}`,
  account: (address: string): string => `#/account/${encodeURIComponent(address)}`,
  job: (id: string): string => `#/job/${encodeURIComponent(id)}`,
  object: (cid: string): string => `#/object/${encodeURIComponent(cid)}`,
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
