// An independent reader: calls svc_getBalance every few ms from its own process (so the load
// generator's own busy event loop doesn't count as node latency) until stdin closes or SIGTERM.
// Prints one JSON line with the latencies. Usage: node balance-probe.js <url> <address> [intervalMs]
import { SvcClient } from '../../sdk/index.js';

const [url, address, intervalArg] = process.argv.slice(2);
const interval = Number(intervalArg ?? 5);
const client = new SvcClient(url!);
const latencies: number[] = [];
let running = true;
const stop = (): void => {
  running = false;
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
process.stdout.write('ready\n');
while (running) {
  const started = performance.now();
  await client.getBalance(address!);
  latencies.push(performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, interval));
}
latencies.sort((a, b) => a - b);
const pct = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
process.stdout.write(`${JSON.stringify({ calls: latencies.length, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: latencies.at(-1) })}\n`);
process.exit(0);
