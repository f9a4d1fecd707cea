import { payloadInTokens } from '../../sdk/index.js';
import { http } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { amount, Fields, Hash } from './fields.js';
import { href } from './route.js';
import { Logs } from './logs.js';

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
          ['Outcome', receipt ? (receipt.status === 'success' ? 'success' : <span data-testid="tx-failure">failed: {receipt.error?.name ?? ''} {receipt.error?.reason ?? ''}</span>) : 'pending'],
          ...(receipt?.gasUsed !== undefined ? ([['Gas used', `${receipt.gasUsed} gas at ${Number(receipt.effectiveGasPrice ?? '0') / 1e9} gwei: ${amount((BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice ?? '0')).toString())} OMC`]] as const) : []),
          ...(receipt?.contractAddress ? ([['Contract created', <a href={href.account(receipt.contractAddress)}><Hash value={receipt.contractAddress} /></a>]] as const) : []),
          ...(receipt?.revert && receipt.revert !== '0x' ? ([['Revert data', <Hash value={receipt.revert} />]] as const) : []),
        ]}
      />
      {receipt?.logs && (
        <>
          <h3>Logs</h3>
          <Logs logs={receipt.logs} />
        </>
      )}
      <h3>Payload</h3>
      <pre class="payload" data-testid="tx-payload">{JSON.stringify(payloadInTokens(tx.kind, tx.payload), null, 2)}</pre>
    </>
  );
}
