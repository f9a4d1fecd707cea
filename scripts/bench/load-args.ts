// The command lines of the load generators the benchmarks run as processes of their own.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const autocannonBin = join(resolve(here, '../../..'), 'node_modules/autocannon/autocannon.js');

/** autocannon POSTing one JSON body over `connections` keep-alive connections for `seconds`, as JSON output. */
export function autocannonArgs(options: {
  url: string;
  body: string;
  connections: number;
  seconds: number;
  /** Requests in flight per connection (HTTP pipelining); autocannon's default is 1. */
  pipelining?: number;
}): string[] {
  const { url, body, connections, seconds, pipelining } = options;
  return [
    autocannonBin,
    '-j',
    ...['-c', String(connections)],
    ...(pipelining === undefined ? [] : ['-p', String(pipelining)]),
    ...['-d', String(seconds), '-m', 'POST', '-H', 'content-type=application/json', '-b', body],
    url,
  ];
}

/** ws-load.js: `connections` WebSockets with `inFlight` calls each, for `seconds`, at an http(s) URL's ws(s) twin. */
export function wsLoadArgs(url: string, connections: number, inFlight: number, seconds: number): string[] {
  return [join(here, 'ws-load.js'), url.replace('http', 'ws'), String(connections), String(inFlight), String(seconds)];
}
