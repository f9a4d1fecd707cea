import type { TransactionView } from '../../sdk/index.js';
import { AccountLink, short } from './fields.js';
import { href } from './route.js';
import { Table } from './table.js';

/** What became of a transaction: pending, or its receipt's status where the listing carries it. */
function Outcome({ tx }: { tx: TransactionView }) {
  if (tx.blockNumber === null) return <>pending</>;
  if (tx.outcome === 'failed') return <span class="error">failed</span>;
  return <>{tx.outcome ?? '—'}</>;
}

/** Transactions as rows: hash, kind, signer, block, outcome. */
export function TxTable({ transactions, testId }: { transactions: readonly TransactionView[]; testId: string }) {
  if (transactions.length === 0) return <p>None yet.</p>;
  return (
    <Table columns={['Hash', 'Kind', ['From', 'wide'], 'Block', 'Status']} testId={testId}>
      {transactions.map((tx) => (
        <tr key={tx.hash}>
          <td>
            <a href={href.tx(tx.hash)} class="hash" title={tx.hash}>
              {short(tx.hash)}
            </a>
          </td>
          <td>{tx.kind}</td>
          <td class="wide">
            <AccountLink address={tx.from} />
          </td>
          <td>{tx.blockNumber === null ? 'pending' : <a href={href.block(tx.blockNumber)}>{tx.blockNumber}</a>}</td>
          <td>
            <Outcome tx={tx} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
