#!/usr/bin/env bash
# Quick start on a fresh machine: install lab, prove the built-in starter suite, run the
# gold and noop baselines over it, and print the report. lab installs uv itself if needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# lab runs tools inside bubblewrap by default; install it where it is missing (needs root).
if [ "$(uname -s)" = Linux ] && ! command -v bwrap >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "bubblewrap (bwrap) is missing: install it (e.g. sudo apt-get install bubblewrap)," >&2
    echo "or run tools without isolation: lab run ... --sandbox none." >&2
  fi
fi

npm ci --no-audit --no-fund
npm run build

lab() { node bin/lab.js "$@"; }
lab gen --suite starter
lab run gold --suite starter
lab run noop --suite starter
lab report --suite starter
