#!/usr/bin/env bash
# Rebuild the GitHub Action's bundle (action/dist, built by ncc and committed) and fail
# when the committed copy is stale: the Action runs action/dist/index.js as committed, so
# a change to action/ or core/ that is not rebuilt would ship old code.
# Run from anywhere; needs `npm ci` done. Fix a failure with: npm run build:action && git add action/dist
set -euo pipefail
cd "$(dirname "$0")/.."

npm run --silent build:action >/dev/null

# New files ncc wrote that are not committed count as stale too.
# (.gitignore ignores dist/, so ask for ignored files too.)
untracked=$(git ls-files --others -- action/dist)
if ! git diff --exit-code --stat -- action/dist || [ -n "$untracked" ]; then
  [ -n "$untracked" ] && printf 'not committed:\n%s\n' "$untracked"
  echo "action/dist is stale: run 'npm run build:action' and commit action/dist" >&2
  exit 1
fi
echo "action/dist is up to date"
