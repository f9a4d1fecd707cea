import { useEffect, useState } from 'preact/hooks';
import type { BlockView, ChainInfo, HeadEvent } from '../../sdk/index.js';
import { http, ws } from './node.js';
import { BlockRow, type BlockSummary } from './block-row.js';

const LATEST = 10;

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
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    let stopped = false;
    let unsubscribe: (() => void) | undefined;
    void (async () => {
      try {
        const chain = await http.chainInfo();
        if (stopped) return;
        setInfo(chain);
        const from = Math.max(0, chain.head.height - LATEST + 1);
        const latest = await Promise.all(Array.from({ length: chain.head.height - from + 1 }, (_, i) => http.getBlockByNumber(chain.head.height - i)));
        if (stopped) return;
        setBlocks(latest.map(summary));
        const heads = await ws.subscribeHeads({ fromBlock: chain.head.height + 1 });
        unsubscribe = heads.on((head) => {
          setBlocks((shown) => [summary(head), ...shown.filter((b) => b.height !== head.height)].slice(0, LATEST));
          setInfo((known) => (known ? { ...known, head: { height: head.height, hash: head.hash, timestamp: head.timestamp } } : known));
        });
      } catch (failure) {
        setError(`The node did not answer: ${(failure as Error).message}`);
      }
    })();
    return () => {
      stopped = true;
      unsubscribe?.();
    };
  }, []);

  if (error) return <p class="error" role="alert">{error}</p>;
  return (
    <>
      <h2>Chain</h2>
      <dl class="stats" aria-label="Chain statistics">
        <div>
          <dt>Head</dt>
          <dd data-testid="head-height" aria-live="polite">{info ? info.head.height : '…'}</dd>
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
      <h2>Latest blocks</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Height</th>
            <th scope="col">Hash</th>
            <th scope="col" class="wide">Proposer</th>
            <th scope="col">Transactions</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody data-testid="latest-blocks">
          {blocks.map((block) => (
            <BlockRow key={block.hash} block={block} />
          ))}
        </tbody>
      </table>
    </>
  );
}
