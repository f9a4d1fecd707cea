import { http } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { Fields, Hash } from './fields.js';
import { href } from './route.js';

/** A transaction and, once mined, its receipt. */
export function TxPage({ hash }: { hash: string }) {
  const loaded = useLoad(`tx ${hash}`, async () => {
    const tx = await http.getTransaction(hash);
    return { tx, receipt: tx.status === 'mined' ? await http.getTransactionReceipt(hash) : undefined };
  });
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what="transaction" />;
  const { tx, receipt } = loaded.value;
  return (
    <>
      <h2>Transaction</h2>
      <Fields
        label="Transaction"
        rows={[
          ['Hash', <Hash value={tx.hash} />],
          ['Kind', tx.kind],
          ['From', <a href={href.account(tx.from)}><Hash value={tx.from} /></a>],
          ['Nonce', tx.nonce],
          ['Block', tx.blockNumber === null ? 'pending' : <a href={href.block(tx.blockNumber)}>{tx.blockNumber}</a>],
          ['Outcome', receipt ? (receipt.status === 'success' ? 'success' : `failed: ${receipt.error?.name ?? ''} ${receipt.error?.reason ?? ''}`) : 'pending'],
        ]}
      />
      <h3>Payload</h3>
      <pre class="payload">{JSON.stringify(tx.payload, null, 2)}</pre>
    </>
  );
}
