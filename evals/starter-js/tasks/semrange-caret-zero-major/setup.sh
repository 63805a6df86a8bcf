#!/usr/bin/env bash
# Prepares this task's work tree in the folder given: semrange at its base commit, with no other history.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../../repos/setup-repo.sh" semrange "$1"
