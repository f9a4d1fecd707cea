import { useState } from 'preact/hooks';
import { useLive } from './live.js';
import type { BlockView, ChainInfo, HeadEvent, TransactionView } from '../../sdk/index.js';
import { http, ws } from './node.js';
import { BlockRow, type BlockSummary } from './block-row.js';
import { TxTable } from './tx-table.js';
import { Table } from './table.js';
import { BlockCharts } from './block-charts.js';
import { Alert } from './not-loaded.js';

const LATEST = 10;

/** The newest transactions of these blocks (newest block first), at most LATEST. */
async function transactionsOf(blocks: readonly BlockView[]): Promise<TransactionView[]> {
  const hashes = blocks.flatMap((block) => [...block.transactions].reverse()).slice(0, LATEST);
  // With each one's receipt status: the table says which failed.
  return Promise.all(
    hashes.map(async (hash) => {
      const [tx, receipt] = await Promise.all([
        http.getTransaction(hash),
        http.getTransactionReceipt(hash).catch(() => undefined),
      ]);
      return receipt ? { ...tx, outcome: receipt.status } : tx;
    }),
  );
}

const summary = (block: BlockView | HeadEvent): BlockSummary => ({
  height: block.height,
  hash: block.hash,
  timestamp: block.timestamp,
  proposer: block.proposer,
  transactions: 'transactionCount' in block ? block.transactionCount : block.transactions.length,
});

/** The head, live over WebSocket, the latest blocks and what the node says of its chain. */
export function Home() {
  const [info, setInfo] = useState<ChainInfo | undefined>();
  const [blocks, setBlocks] = useState<BlockSummary[]>([]);
  const [transactions, setTransactions] = useState<TransactionView[]>([]);
  const [error, setError] = useState<string | undefined>();

  useLive(
    async (live) => {
      const chain = await http.chainInfo();
      if (!live.active) return;
      setInfo(chain);
      const from = Math.max(0, chain.head.height - LATEST + 1);
      const latest = await Promise.all(
        Array.from({ length: chain.head.height - from + 1 }, (_, i) => http.getBlockByNumber(chain.head.height - i)),
      );
      if (!live.active) return;
      setBlocks(latest.map(summary));
      setTransactions(await transactionsOf(latest));
      if (!live.active) return;
      const heads = await ws.subscribeHeads({ fromBlock: chain.head.height + 1 });
      live.onEnd(() => void heads.unsubscribe());
      if (!live.active) return;
      heads.on((head) => {
        setBlocks((shown) => [summary(head), ...shown.filter((b) => b.height !== head.height)].slice(0, LATEST));
        setInfo((known) =>
          known ? { ...known, head: { height: head.height, hash: head.hash, timestamp: head.timestamp } } : known,
        );
        if (head.transactionCount === 0) return;
        void http
          .getBlockByNumber(head.height)
          .then((block) => transactionsOf([block]))
          .then(
            (fresh) =>
              live.active &&
              setTransactions((shown) =>
                [...fresh, ...shown.filter((tx) => !fresh.some((f) => f.hash === tx.hash))].slice(0, LATEST),
              ),
          )
          // A block's transactions that could not be read now are left out; the blocks table still counts them.
          .catch(() => undefined);
      });
    },
    [],
    (failure) => setError(`The node did not answer: ${(failure as Error).message}`),
  );

  if (error) return <Alert>{error}</Alert>;
  return (
    <>
      <h2>Chain</h2>
      <dl class="stats" aria-label="Chain statistics">
        <div>
          <dt>Head</dt>
          <dd data-testid="head-height" aria-live="polite">
            {info ? info.head.height : '…'}
          </dd>
        </div>
        <div>
          <dt>Network</dt>
          <dd>{info ? `${info.network} (${info.chainId})` : '…'}</dd>
        </div>
        <div>
          <dt>Pending transactions</dt>
          <dd>{info ? info.pendingTransactions : '…'}</dd>
        </div>
      </dl>
      <BlockCharts />
      <h2>Latest blocks</h2>
      <Table columns={['Height', 'Hash', ['Proposer', 'wide'], 'Transactions', 'Time']} testId="latest-blocks">
        {blocks.map((block) => (
          <BlockRow key={block.hash} block={block} />
        ))}
      </Table>
      <h2>Latest transactions</h2>
      <TxTable transactions={transactions} testId="latest-transactions" />
    </>
  );
}
