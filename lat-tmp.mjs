const url = process.argv[2];
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: process.argv[3] ?? 'eth_chainId', params: [] });
for (let i = 0; i < 50; i++) await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
const t = performance.now();
for (let i = 0; i < 500; i++) await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
console.log(process.argv[3] ?? 'eth_chainId', ((performance.now() - t) / 500).toFixed(3), 'ms');
