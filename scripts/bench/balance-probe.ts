// An independent reader: calls svc_getBalance every few ms from its own process (so the load
// generator's own busy event loop doesn't count as node latency) until stdin closes or SIGTERM.
// Prints one JSON line with the latencies. Usage: node balance-probe.js <url> <address> [intervalMs]
// Lean on purpose: one keep-alive connection and a plain HTTP request per call (the SDK client's
// fetch took ~1 ms of CPU per call, so two probes took a sixth of the two cores they measure). The
// node still answers each call through its whole HTTP and JSON-RPC path.
import { Agent, request } from 'node:http';

const [url, address, intervalArg] = process.argv.slice(2);
const interval = Number(intervalArg ?? 5);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const latencies: number[] = [];
let running = true;
let id = 0;
const stop = (): void => {
  running = false;
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();

/** One svc_getBalance call; a JSON-RPC error or an answer without a balance ends the probe. */
function getBalance(): Promise<void> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'svc_getBalance', params: [address] });
  return new Promise((resolve, reject) => {
    const req = request(
      url!,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString()) as {
            result?: { address?: string };
            error?: { message: string };
          };
          if (answer.result?.address === undefined)
            reject(new Error(`svc_getBalance: ${answer.error?.message ?? 'no balance in the answer'}`));
          else resolve();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

process.stdout.write('ready\n');
while (running) {
  const started = performance.now();
  await getBalance();
  latencies.push(performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, interval));
}
latencies.sort((a, b) => a - b);
const pct = (q: number): number =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
process.stdout.write(
  `${JSON.stringify({ calls: latencies.length, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: latencies.at(-1) })}\n`,
);
process.exit(0);
