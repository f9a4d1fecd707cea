import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { RpcError } from '../../sdk/index.js';
import { http, setToken, token } from './node.js';
import { Alert } from './not-loaded.js';

type Gate =
  | { readonly state: 'checking' }
  | { readonly state: 'open' }
  | { readonly state: 'asking'; readonly refused?: string };

/** Whether the node refuses this page's calls for want of a token (guardrails): an HTTP 401. */
async function asksForToken(): Promise<RpcError | { message: string } | undefined> {
  // Without a token, /health?verbose (open to all) says whether one is needed: no call is made to be refused.
  if (!token) {
    const health = (await fetch('/health?verbose')
      .then((r) => r.json())
      .catch(() => ({}))) as { guardrails?: boolean };
    if (health.guardrails) return { message: 'a token is needed' };
  }
  try {
    await http.blockNumber();
    return undefined;
  } catch (error) {
    // Anything else (the node down, a rate limit) is for the pages to say.
    return error instanceof RpcError && error.httpStatus === 401 ? error : undefined;
  }
}

/**
 * The pages, once the node answers this page's calls. A node with guardrails refuses them without a
 * token: the page asks for one, and sends it (with a fresh nonce per call) from then on.
 */
export function TokenGate({ children }: { children: ComponentChildren }) {
  const [gate, setGate] = useState<Gate>({ state: 'checking' });
  const [typed, setTyped] = useState('');
  const check = async (): Promise<void> => {
    const refusal = await asksForToken();
    if (!refusal) return setGate({ state: 'open' });
    setGate({
      state: 'asking',
      ...(token ? { refused: `The node did not accept this token (${refusal.message}).` } : {}),
    });
  };
  useEffect(() => void check(), []);
  if (gate.state === 'open') return <>{children}</>;
  if (gate.state === 'checking') return <p>Connecting to the node…</p>;
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (typed.trim() === '')
      return setGate({ state: 'asking', refused: 'Type the access token the node operator gave you.' });
    setToken(typed.trim());
    setTyped('');
    await check();
  };
  return (
    <>
      <h2>Access token</h2>
      <p>
        This node has deployment guardrails on: its data is for holders of an access token. The page keeps the token in
        this tab only and sends it with each call.
      </p>
      <form class="faucet" onSubmit={(event) => void submit(event)} noValidate>
        <label for="token">Access token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          value={typed}
          aria-invalid={gate.refused ? 'true' : 'false'}
          aria-describedby={gate.refused ? 'token-error' : undefined}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Open the explorer</button>
        {gate.refused && <Alert id="token-error">{gate.refused}</Alert>}
      </form>
    </>
  );
}
