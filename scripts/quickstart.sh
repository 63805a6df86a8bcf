#!/usr/bin/env bash
# Quick start on a fresh machine: install lab, prove the built-in starter suite, run the
# gold and noop baselines over it, and print the report. lab installs uv itself if needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/install-bwrap.sh

npm ci --no-audit --no-fund
npm run build

lab() { node bin/lab.js "$@"; }
lab gen --suite starter
lab run gold --suite starter
lab run noop --suite starter
lab report --suite starter
