import { payloadInTokens } from '../../sdk/index.js';
import { http } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { amount, Fields, Hash } from './fields.js';
import { href } from './route.js';
import { Logs } from './logs.js';
import { contractAbis, decodedText, decodeLog, decodeRevert, type Decoded } from './abis.js';

/** A transaction and, once mined, its receipt. */
export function TxPage({ hash }: { hash: string }) {
  const loaded = useLoad(`tx ${hash}`, async () => {
    const tx = await http.getTransaction(hash);
    const receipt = tx.status === 'mined' ? await http.getTransactionReceipt(hash) : undefined;
    // Events and custom errors of contracts whose ABI the node keeps, decoded by it.
    const to = (tx.payload as { to?: unknown }).to;
    const logs = receipt?.logs ?? [];
    const reverted = receipt?.revert && receipt.revert !== '0x' ? receipt.revert : undefined;
    const revertedIn = reverted && typeof to === 'string' ? to : undefined;
    const abis = await contractAbis([...logs.map((log) => log.address), ...(revertedIn ? [revertedIn] : [])]);
    const decodedLogs: (Decoded | undefined)[] = await Promise.all(
      logs.map((log) => (abis.has(log.address) ? decodeLog(abis.get(log.address)!, log) : undefined)),
    );
    const revertAbi = revertedIn && abis.get(revertedIn);
    const decodedRevert = reverted && revertAbi ? await decodeRevert(revertAbi, reverted) : undefined;
    return { tx, receipt, decodedLogs, decodedRevert };
  });
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what="transaction" />;
  const { tx, receipt, decodedLogs, decodedRevert } = loaded.value;
  return (
    <>
      <h2>Transaction</h2>
      <Fields
        label="Transaction"
        rows={[
          ['Hash', <Hash value={tx.hash} />],
          ['Kind', tx.kind],
          [
            'From',
            <a href={href.account(tx.from)}>
              <Hash value={tx.from} />
            </a>,
          ],
          ['Nonce', tx.nonce],
          ['Block', tx.blockNumber === null ? 'pending' : <a href={href.block(tx.blockNumber)}>{tx.blockNumber}</a>],
          [
            'Outcome',
            receipt ? (
              receipt.status === 'success' ? (
                'success'
              ) : (
                <span data-testid="tx-failure" title={receipt.error?.name}>
                  failed: {receipt.error?.reason || receipt.error?.name || 'no reason given'}
                </span>
              )
            ) : (
              'pending'
            ),
          ],
          ...(receipt?.gasUsed !== undefined
            ? ([
                [
                  'Gas used',
                  `${receipt.gasUsed} gas at ${Number(receipt.effectiveGasPrice ?? '0') / 1e9} gwei: ${amount((BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice ?? '0')).toString())} OMC`,
                ],
              ] as const)
            : []),
          ...(receipt?.contractAddress
            ? ([
                [
                  // A failed create's receipt names the address it would have made, as geth's does.
                  receipt.status === 'success' ? 'Contract created' : 'Contract address (not created)',
                  <a href={href.account(receipt.contractAddress)}>
                    <Hash value={receipt.contractAddress} />
                  </a>,
                ],
              ] as const)
            : []),
          ...(decodedRevert
            ? ([['Reverted with', <code data-testid="decoded-revert">{decodedText(decodedRevert)}</code>]] as const)
            : []),
          ...(receipt?.revert && receipt.revert !== '0x'
            ? ([['Revert data', <Hash value={receipt.revert} />]] as const)
            : []),
        ]}
      />
      {receipt?.logs && (
        <>
          <h3>Logs</h3>
          <Logs logs={receipt.logs} decoded={decodedLogs} />
        </>
      )}
      <h3>Payload</h3>
      <pre class="payload" data-testid="tx-payload">
        {JSON.stringify(payloadInTokens(tx.kind, tx.payload), null, 2)}
      </pre>
    </>
  );
}
