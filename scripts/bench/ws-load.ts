// Pipelined JSON-RPC over WebSocket: C connections, each keeping D requests in flight, for S seconds.
// Prints one JSON line: { calls, seconds, callsPerSecond }.
import WebSocket from 'ws';

const [url, connectionsArg, depthArg, secondsArg] = process.argv.slice(2);
const connections = Number(connectionsArg ?? 4);
const depth = Number(depthArg ?? 64);
const seconds = Number(secondsArg ?? 5);
const request = '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber","params":[]}';

let calls = 0;
let measuring = false;
const sockets = await Promise.all(
  Array.from(
    { length: connections },
    () =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url!, { perMessageDeflate: false });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      }),
  ),
);
for (const ws of sockets) {
  ws.on('message', () => {
    if (measuring) calls++;
    ws.send(request);
  });
}
// Warm up for 1 s, then measure.
for (const ws of sockets) for (let i = 0; i < depth; i++) ws.send(request);
await new Promise((r) => setTimeout(r, 1000));
measuring = true;
const started = performance.now();
await new Promise((r) => setTimeout(r, seconds * 1000));
measuring = false;
const elapsed = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ calls, seconds: elapsed, callsPerSecond: calls / elapsed })}\n`);
for (const ws of sockets) ws.terminate();
process.exit(0);
