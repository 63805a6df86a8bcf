#!/usr/bin/env bash
# Grades a work tree (or, with --patch FILE, a diff) against this task's hidden tests, on the host.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "${LAB_BIN:-lab}" grade --task-dir "$here" "$@"
