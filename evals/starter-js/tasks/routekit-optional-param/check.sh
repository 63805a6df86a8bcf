#!/usr/bin/env bash
# Grades a work tree (or, with --patch FILE, a diff) against this task's hidden tests, on the host.
# Runs the lab on PATH (`npm link` in lab's folder puts it there), or the one LAB_BIN names.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lab="${LAB_BIN:-lab}"
if ! command -v "$lab" >/dev/null; then
  echo "check.sh: cannot run lab (${lab}): run \`npm link\` in lab's folder to put it on PATH, or set LAB_BIN=/path/to/lab/bin/lab.js." >&2
  exit 127
fi
exec "$lab" grade --task-dir "$here" "$@"
