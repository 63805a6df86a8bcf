#!/usr/bin/env bash
# setup-repo.sh PROJECT DEST: lays out PROJECT (a folder beside this script) in DEST as a
# git repository with exactly one commit, whose hash is the same on every machine. A project is a
# Python one (pyproject.toml) or a JavaScript/TypeScript one (package.json); its installed
# node_modules, if any, stays out of the copy and the commit.
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: setup-repo.sh PROJECT DEST" >&2
  exit 2
fi
project="$1"
dest="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/$project"

if [ -z "$project" ] || [[ "$project" == */* ]] || { [ ! -f "$src/pyproject.toml" ] && [ ! -f "$src/package.json" ]; }; then
  echo "setup-repo.sh: unknown project: $project" >&2
  exit 2
fi
if [ -e "$dest" ] && { [ ! -d "$dest" ] || [ -n "$(ls -A "$dest")" ]; }; then
  echo "setup-repo.sh: destination exists and is not an empty folder: $dest" >&2
  exit 2
fi

mkdir -p "$dest"
# node_modules is left behind rather than copied and removed: it can hold thousands of files.
find "$src" -mindepth 1 -maxdepth 1 ! -name node_modules -exec cp -R {} "$dest/" \;
cd "$dest"
find . \( -name __pycache__ -o -name '*.egg-info' -o -name .pytest_cache -o -name .venv \
  -o -name .ruff_cache -o -name .mypy_cache -o -name node_modules \) -prune \
  -exec rm -rf {} +

# Neither the system's nor the user's git configuration may change what gets committed.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
git -c init.defaultBranch=main init -q
git -c core.autocrlf=false -c core.fileMode=true -c core.excludesFile=/dev/null add -A
GIT_AUTHOR_NAME=lab GIT_AUTHOR_EMAIL=lab@localhost \
GIT_COMMITTER_NAME=lab GIT_COMMITTER_EMAIL=lab@localhost \
GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z' \
  git -c commit.gpgsign=false -c core.hooksPath=/dev/null -c core.autocrlf=false \
  -c i18n.commitEncoding=UTF-8 commit -q -m "$project base"
