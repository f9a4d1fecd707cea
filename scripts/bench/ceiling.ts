// The ceiling: bare node:http and ws servers that parse each JSON-RPC body or message and answer a
// fixed result. svc-node's RPC path is measured against these, in the same run, on the same machine.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

function answer(text: string): string {
  const message = JSON.parse(text) as { id: unknown } | { id: unknown }[];
  const one = (m: { id: unknown }): string => `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":1}`;
  return Array.isArray(message) ? `[${message.map(one).join(',')}]` : one(message);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = answer(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
const wss = new WebSocketServer({ server, perMessageDeflate: false });
wss.on('connection', (ws) => ws.on('message', (data) => ws.send(answer(data.toString()))));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
