import { useState } from 'preact/hooks';
import { useLive } from './live.js';
import type { BlockView } from '../../sdk/index.js';
import { http, ws } from './node.js';
import { Chart } from './chart.js';

/** Blocks the home page's charts show. */
const WINDOW = 300;

interface Point {
  readonly height: number;
  readonly timestamp: number;
  readonly transactions: number;
}

const pointOf = (
  block: Pick<BlockView, 'height' | 'timestamp'> & { transactions: readonly unknown[] | number },
): Point => ({
  height: block.height,
  timestamp: block.timestamp,
  transactions: typeof block.transactions === 'number' ? block.transactions : block.transactions.length,
});

/** The last few hundred blocks as charts — block time and transactions per block — kept live by new heads. */
export function BlockCharts() {
  const [points, setPoints] = useState<Point[]>([]);
  // Charts are an extra: a failure to load them leaves them out.
  useLive(async (live) => {
    const head = await http.blockNumber();
    // From block 1: block 0's time is the genesis's, not a block interval.
    const from = Math.max(1, head - WINDOW);
    if (head < from) return;
    const heights = Array.from({ length: head - from + 1 }, (_, i) => from + i);
    const loaded: Point[] = [];
    // In batches the node takes (at most 100 calls each).
    for (let i = 0; i < heights.length; i += 100) {
      const results = await http.batch(
        heights.slice(i, i + 100).map((height) => ({ method: 'svc_getBlockByNumber', params: [height] })),
      );
      for (const result of results) if (result.ok) loaded.push(pointOf(result.result as BlockView));
    }
    if (!live.active) return;
    setPoints(loaded);
    const heads = await ws.subscribeHeads({ fromBlock: head + 1 });
    live.onEnd(() => void heads.unsubscribe());
    if (!live.active) return;
    heads.on((event) =>
      setPoints((shown) =>
        [
          ...shown.filter((p) => p.height !== event.height),
          pointOf({ ...event, transactions: event.transactionCount }),
        ].slice(-(WINDOW + 1)),
      ),
    );
  }, []);
  if (points.length < 2) return null;
  const shown = points.slice(1);
  const x = shown.map((p) => p.height);
  const blockTimes = shown.map((p, i) => p.timestamp - points[i]!.timestamp);
  const txs = shown.map((p) => p.transactions);
  const last = shown.at(-1)!;
  const median = [...blockTimes].sort((a, b) => a - b)[Math.floor(blockTimes.length / 2)]!;
  return (
    <div class="charts">
      <Chart
        title={`Block time, last ${shown.length} blocks (ms)`}
        x={x}
        series={[{ label: 'block time (ms)', values: blockTimes, color: '#3b82f6' }]}
        testId="chart-block-time"
        summary={`median ${median} ms, latest ${blockTimes.at(-1)} ms at block ${last.height}`}
      />
      <Chart
        title={`Transactions per block, last ${shown.length} blocks`}
        x={x}
        series={[{ label: 'transactions', values: txs, color: '#10b981' }]}
        testId="chart-transactions"
        summary={`${txs.reduce((a, b) => a + b, 0)} in all, ${last.transactions} in block ${last.height}`}
      />
    </div>
  );
}
