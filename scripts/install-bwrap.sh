#!/usr/bin/env bash
# lab runs tools inside bubblewrap by default: install it where it is missing (needs root and
# apt-get); otherwise say how. Sourced by quickstart.sh and test.sh.
if [ "$(uname -s)" = Linux ] && ! command -v bwrap >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "bubblewrap (bwrap) is missing: install it (e.g. sudo apt-get install bubblewrap)," >&2
    echo "or run tools without isolation: lab run ... --sandbox none (the tests that run tools need it)." >&2
  fi
fi
