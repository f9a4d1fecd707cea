import { formatAmountShort } from '../../sdk/index.js';
import { http } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { Fields, Hash } from './fields.js';

/** An account: OMC, OGT, what it has bonded, its nonce. */
export function AccountPage({ address }: { address: string }) {
  const loaded = useLoad(`account ${address}`, async () => {
    const [balance, nonce] = await Promise.all([http.getBalance(address), http.getNonce(address)]);
    return { balance, nonce };
  });
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what="account" />;
  const { balance, nonce } = loaded.value;
  const bonded = Object.entries(balance.bonded);
  return (
    <>
      <h2>Account</h2>
      <Fields
        label="Account"
        rows={[
          ['Address', <Hash value={balance.address} />],
          ['OMC', <span data-testid="balance-omc">{formatAmountShort(balance.omc)}</span>],
          ['OGT', formatAmountShort(balance.ogt)],
          ['Bonded OGT', bonded.length === 0 ? 'none' : bonded.map(([purpose, amount]) => `${formatAmountShort(amount)} (${purpose})`).join(', ')],
          ['Next nonce', nonce],
          ['At block', balance.blockNumber],
        ]}
      />
    </>
  );
}
