// The container's health for Docker's HEALTHCHECK: its node's /health answers 200 (up, synced, producing
// if it validates). SVC_HEALTH_URL names it (default http://127.0.0.1:8545/health); over HTTPS the
// certificate is not checked, since this asks the node in the same container whether it is alive.
import http from 'node:http';
import https from 'node:https';

const url = new URL(process.env.SVC_HEALTH_URL ?? 'http://127.0.0.1:8545/health');
const get = url.protocol === 'https:' ? https.get : http.get;
const request = get(url, { rejectUnauthorized: false, timeout: 4_000 }, (response) => {
  process.stdout.write(`${url.href}: ${response.statusCode}\n`);
  process.exit(response.statusCode === 200 ? 0 : 1);
});
request.on('timeout', () => request.destroy(new Error('no answer in 4 s')));
request.on('error', (error) => {
  process.stdout.write(`${url.href}: ${error.message}\n`);
  process.exit(1);
});
