// The bare ceiling of the objects benchmark, in its own process like the node it is compared with:
// PUT /objects/<name> pipes the body to a file, GET /objects/<name> pipes the file (or one range) back.
// Usage: node object-ceiling.js <dir>; prints "listening <port>".
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2]!;
const server = createServer((req, res) => {
  const path = join(dir, req.url!.split('/').pop()!);
  if (req.method === 'PUT') {
    pipeline(req, createWriteStream(path)).then(
      () => res.writeHead(201).end('{}'),
      () => res.writeHead(500).end(),
    );
    return;
  }
  const size = statSync(path).size;
  const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  const [start, end] = match ? [Number(match[1]), Math.min(Number(match[2]), size - 1)] : [0, size - 1];
  res.writeHead(match ? 206 : 200, { 'content-length': end - start + 1, 'content-type': 'image/png' });
  void pipeline(createReadStream(path, { start, end }), res).catch(() => undefined);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
