import { useEffect, useState } from 'preact/hooks';
import { accountAddress, isValidAddress, isValidEthAddress, type FaucetGrant } from '../../sdk/index.js';
import { http } from './node.js';
import { describe } from './load.js';
import { href } from './route.js';
import { Alert } from './not-loaded.js';

const NOT_AN_ADDRESS = 'Not an address: an address is svc1 or 0x followed by 40 hex digits.';

/** The devnet faucet: an address, checked as typed; a grant; then the cooldown counting down. */
export function FaucetPage() {
  const [address, setAddress] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [grant, setGrant] = useState<FaucetGrant | undefined>();
  const [nextAt, setNextAt] = useState<number | undefined>();
  const [now, setNow] = useState(Date.now());
  const typed = address.trim();
  // svc1… or 0x… (the same account); faucet_request takes the svc1 name.
  const account = isValidAddress(typed) ? typed : isValidEthAddress(typed) ? accountAddress(typed) : undefined;
  const invalid = typed !== '' && account === undefined;

  useEffect(() => {
    if (nextAt === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [nextAt]);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const target = account;
    if (target === undefined) return setError(NOT_AN_ADDRESS);
    setError(undefined);
    try {
      setGrant(await http.faucetRequest(target));
    } catch (failure) {
      setGrant(undefined);
      setError(describe(failure));
    }
    const status = await http.faucetStatus(target).catch(() => undefined);
    setNextAt(status && !status.eligible && status.nextEligibleAt !== null ? status.nextEligibleAt : undefined);
    setNow(Date.now());
  };
  const message = invalid ? NOT_AN_ADDRESS : error;
  const waitSeconds = nextAt === undefined ? 0 : Math.max(0, Math.ceil((nextAt - now) / 1000));

  return (
    <>
      <h2>Faucet</h2>
      <form class="faucet" onSubmit={submit} noValidate>
        <label for="faucet-address">Address to fund</label>
        <input
          id="faucet-address"
          value={address}
          placeholder="svc1… or 0x…"
          autoComplete="off"
          spellcheck={false}
          aria-invalid={message ? 'true' : 'false'}
          aria-describedby={message ? 'faucet-error' : undefined}
          onInput={(e) => setAddress((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={invalid || waitSeconds > 0}>
          Request devnet tokens
        </button>
        {message && <Alert id="faucet-error">{message}</Alert>}
      </form>
      {grant && (
        <p role="status" data-testid="faucet-granted">
          Granted {grant.omcMinted} OMC and {grant.ogtMinted} OGT to{' '}
          <a href={href.account(account ?? typed)}>{account ?? typed}</a> (transaction{' '}
          <a href={href.tx(grant.txHash)}>{grant.txHash.slice(0, 12)}…</a>).
        </p>
      )}
      {waitSeconds > 0 && (
        <p data-testid="faucet-cooldown" aria-live="polite">
          Next grant for this address in {waitSeconds} s, at{' '}
          <time dateTime={new Date(nextAt!).toISOString()}>{new Date(nextAt!).toLocaleTimeString()}</time>.
        </p>
      )}
    </>
  );
}
