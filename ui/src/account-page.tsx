import { useEffect, useState } from 'preact/hooks';
import type { TransactionView } from '../../sdk/index.js';
import { http } from './node.js';
import { describe, useLoad } from './load.js';
import { NotLoaded, Alert } from './not-loaded.js';
import { amount, Fields, Hash } from './fields.js';
import { TxTable } from './tx-table.js';
import { href } from './route.js';

const PAGE = 20;

/** An account: OMC, OGT, what it has bonded, its nonce, and its transactions, newest first. */
export function AccountPage({ address }: { address: string }) {
  const loaded = useLoad(`account ${address}`, async () => {
    const [balance, nonce, first, contract] = await Promise.all([
      http.getBalance(address),
      http.getNonce(address),
      http.listTransactions(address, { limit: PAGE }),
      // An account without code answers not_found: it is simply not a contract.
      http.getContract(address).catch(() => undefined),
    ]);
    return { balance, nonce, first, contract };
  });
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what="account" />;
  const { balance, nonce, first, contract } = loaded.value;
  const bonded = Object.entries(balance.bonded);
  return (
    <>
      <h2>Account</h2>
      <Fields
        label="Account"
        rows={[
          ['Address', <Hash value={balance.address} />],
          ['OMC', <span data-testid="balance-omc">{amount(balance.omc)}</span>],
          ['OGT', amount(balance.ogt)],
          [
            'Bonded OGT',
            bonded.length === 0 ? 'none' : bonded.map(([purpose, units]) => `${amount(units)} (${purpose})`).join(', '),
          ],
          ['Next nonce', nonce],
          ['At block', balance.blockNumber],
        ]}
      />
      {contract && (
        <>
          <h3>Contract</h3>
          <Fields
            label="Contract"
            rows={[
              ['Code size', <span data-testid="code-size">{contract.codeSize} bytes</span>],
              ['Code hash', <Hash value={contract.codeHash} />],
              [
                'Created by',
                <a href={href.account(contract.creator)}>
                  <Hash value={contract.creator} />
                </a>,
              ],
              ['Created in block', <a href={href.block(contract.createdAt)}>{contract.createdAt}</a>],
            ]}
          />
        </>
      )}
      <h3>Transactions</h3>
      <AccountTransactions key={address} address={address} first={first} />
    </>
  );
}

/** The first page, and the next ones on request. */
function AccountTransactions({
  address,
  first,
}: {
  address: string;
  first: { transactions: TransactionView[]; cursor: string | null; indexedFrom: number };
}) {
  const [shown, setShown] = useState(first.transactions);
  const [cursor, setCursor] = useState(first.cursor);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setShown(first.transactions);
    setCursor(first.cursor);
  }, [first]);
  const more = async (): Promise<void> => {
    try {
      const page = await http.listTransactions(address, { limit: PAGE, cursor: cursor! });
      setShown((before) => [...before, ...page.transactions]);
      setCursor(page.cursor);
    } catch (failure) {
      setError(describe(failure));
    }
  };
  return (
    <>
      <TxTable transactions={shown} testId="account-transactions" />
      {first.indexedFrom > 0 && <p>This node lists an account's transactions from block {first.indexedFrom} on.</p>}
      {cursor && (
        <button type="button" onClick={() => void more()}>
          Show older transactions
        </button>
      )}
      {error && <Alert>{error}</Alert>}
    </>
  );
}
