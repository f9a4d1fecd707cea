#!/usr/bin/env bash
# How long a single-replica WASM job takes on a default devnet (a validator with the default 3 s
# blocks and a compute node following it): `svc job submit --wait`, from the command to `finalized`,
# three times. Usage (after `npm run build`): bash scripts/bench/job-latency.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$(mktemp -d /tmp/svc-job-latency-XXXX)
SVC="node dist/bin/svc.js"
NODE="node dist/bin/svc-node.js"
trap 'kill $(jobs -p) 2>/dev/null || true; sleep 1; rm -rf "$D"' EXIT
# The first URL or p2p address a node's log names.
said() { until grep -q "$2" "$1" 2>/dev/null; do sleep 0.2; done; grep -o "$2[^\"]*" "$1" | head -1 | sed "s|$2||"; }
$NODE start --role validator --data-dir "$D/v" --bind 127.0.0.1:0 --p2p-host 127.0.0.1 --p2p-port 0 --log-format json > "$D/v.log" 2>&1 &
V_RPC=$(said "$D/v.log" 'rpc listening on ')
V_P2P=$(said "$D/v.log" 'p2p listening on ')
$NODE start --role compute --data-dir "$D/c" --bind 127.0.0.1:0 --p2p-host 127.0.0.1 --p2p-port 0 --bootstrap-peers "$V_P2P" --log-format json > "$D/c.log" 2>&1 &
C_RPC=$(said "$D/c.log" 'rpc listening on ')
until curl -sf "$C_RPC/health" > /dev/null; do sleep 0.5; done
OPERATOR=$($SVC --url "$C_RPC" node-info operator)
$SVC --url "$V_RPC" transfer --to "$OPERATOR" --amount 2000 --asset OGT --dev-account 0 --wait > /dev/null 2>&1
$SVC --url "$C_RPC" oon register --capabilities wasm,evm --bond 1000 --max-jobs 4 --wait > /dev/null 2>&1
npx wat2wasm examples/jobs/upper.wat -o "$D/upper.wasm"
for i in 1 2 3; do
  start=$(date +%s.%N)
  $SVC --url "$V_RPC" job submit --code "$D/upper.wasm" --input 'hello, oon' --gas-limit 1000000 --gas-price 1 --dev-account 2 --wait --json > "$D/job.json" 2> /dev/null
  end=$(date +%s.%N)
  echo "job $i: $(echo "$end - $start" | bc) s, $(grep -o '"status":"[a-z]*"' "$D/job.json")"
done
