import { useEffect, useState } from 'preact/hooks';
import { accountAddress, isValidAddress, isValidEthAddress } from '../../sdk/index.js';
import { http } from './node.js';
import { describe } from './load.js';
import { href } from './route.js';
import { Alert } from './not-loaded.js';

const HASH = /^0x[0-9a-fA-F]{64}$/;

/** Where a search goes: a block by number, an account by address, a transaction or a block by hash. */
async function resolve(query: string): Promise<string> {
  if (/^\d+$/.test(query)) return href.block(query);
  if (isValidAddress(query)) return href.account(query);
  if (isValidEthAddress(query)) return href.account(accountAddress(query));
  if (!HASH.test(query))
    throw new Error(
      'Type a block number, a hash (0x and 64 hex digits) or an address (svc1 or 0x, then 40 hex digits).',
    );
  const hash = query.toLowerCase();
  const tx = await http.getTransaction(hash).catch(() => undefined);
  if (tx) return href.tx(hash);
  const block = await http.getBlockByHash(hash).catch(() => undefined);
  if (block) return href.block(block.height);
  throw new Error(`No block and no transaction has the hash ${hash}.`);
}

export function Search() {
  const [query, setQuery] = useState('');
  const [error, setError] = useState<string | undefined>();
  // A message is about the query just made: going to another page, or typing, puts it away.
  useEffect(() => {
    const clear = (): void => setError(undefined);
    addEventListener('hashchange', clear);
    return () => removeEventListener('hashchange', clear);
  }, []);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    try {
      location.hash = await resolve(query.trim());
      setError(undefined);
      setQuery('');
    } catch (failure) {
      setError(describe(failure));
    }
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: the <search> element is too new for the browsers the page supports; the role says the same.
    <form role="search" class="search" onSubmit={submit}>
      <label for="search">Search</label>
      <input
        id="search"
        name="q"
        value={query}
        placeholder="block, hash or address"
        aria-invalid={error ? 'true' : 'false'}
        aria-describedby={error ? 'search-error' : undefined}
        onInput={(e) => {
          setQuery((e.target as HTMLInputElement).value);
          setError(undefined);
        }}
      />
      <button type="submit">Go</button>
      {error && <Alert id="search-error">{error}</Alert>}
    </form>
  );
}
