// 1,000 WebSocket subscribers to newHeads: for each block, the time from the block's timestamp (set
// when the validator starts building it, so this includes building and committing it) to its arrival
// at the last of the subscribers. Prints one JSON line. Usage: node subscribers.js <wsUrl> [count] [blocks]
import WebSocket from 'ws';

const [url, countArg, blocksArg] = process.argv.slice(2);
const count = Number(countArg ?? 1000);
const blocks = Number(blocksArg ?? 30);

const arrivals = new Map<number, { timestamp: number; last: number; received: number }>();
let subscribed = 0;
const sockets: WebSocket[] = [];
await Promise.all(
  Array.from(
    { length: count },
    (_, i) =>
      new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(url!, { perMessageDeflate: false });
        sockets.push(ws);
        ws.on('error', reject);
        ws.on('open', () =>
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'svc_subscribe', params: ['newHeads'] })),
        );
        ws.on('message', (data) => {
          const now = Date.now();
          const message = JSON.parse(data.toString()) as {
            id?: number;
            params?: { result: { height: number; timestamp: number } };
          };
          if (message.id !== undefined) {
            subscribed++;
            resolve();
            return;
          }
          const head = message.params!.result;
          const entry = arrivals.get(head.height) ?? { timestamp: head.timestamp, last: 0, received: 0 };
          entry.last = Math.max(entry.last, now);
          entry.received++;
          arrivals.set(head.height, entry);
        });
      }),
  ),
);
const first = Math.max(0, ...arrivals.keys()) + 1;
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const complete = [...arrivals.entries()].filter(([h, e]) => h >= first && e.received === count).length;
    if (complete >= blocks) {
      clearInterval(timer);
      resolve();
    }
  }, 50);
});
const latencies = [...arrivals.entries()]
  .filter(([h, e]) => h >= first && e.received === count)
  .map(([, e]) => e.last - e.timestamp)
  .sort((a, b) => a - b);
const pct = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
process.stdout.write(
  `${JSON.stringify({ subscribers: subscribed, blocks: latencies.length, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: latencies.at(-1) })}\n`,
);
for (const ws of sockets) ws.terminate();
process.exit(0);
