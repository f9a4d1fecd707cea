// HTTP load with a bearer token and a fresh nonce per request (autocannon, programmatic), so a node
// with guardrails can be measured. Prints one JSON line. Usage: node authed-load.js <url> <token> <seconds>
import autocannon from 'autocannon';
import { newNonce } from '../../sdk/index.js';

const [url, token, seconds] = process.argv.slice(2);
const body = '{"jsonrpc":"2.0","id":1,"method":"svc_blockNumber","params":[]}';
const result = await autocannon({
  url: url!,
  connections: 50,
  duration: Number(seconds ?? 10),
  requests: [
    {
      method: 'POST',
      body,
      setupRequest: (request) => ({
        ...request,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-svc-nonce': newNonce() },
      }),
    },
  ],
});
process.stdout.write(
  `${JSON.stringify({ requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, errors: result.errors, non2xx: result.non2xx })}\n`,
);
