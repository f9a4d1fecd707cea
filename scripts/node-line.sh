#!/usr/bin/env bash
# Prints the path of a Node binary of one release line (`scripts/node-line.sh 24`): this machine's when it
# is of that line, else the npm registry's `node` package of that line (its binary ships inside), installed
# into .ci/node-<line> the first time and kept there.
set -euo pipefail
line="${1:?usage: scripts/node-line.sh <major line, e.g. 24>}"
if [ "$(node -p 'process.versions.node.split(".")[0]')" = "$line" ]; then
  command -v node
  exit 0
fi
dir="$(cd "$(dirname "$0")/.." && pwd)/.ci/node-$line"
[ -x "$dir/node_modules/.bin/node" ] || npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$line" >/dev/null
echo "$dir/node_modules/.bin/node"
