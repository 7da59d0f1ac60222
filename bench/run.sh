#!/usr/bin/env bash
# `npm run bench [-- --json | --quick | --only=replay,checks,peers,scaling,tokenizers,memory,policies,stores,formats,background,tracing,cluster,recall]`
# Installs the bench's own dependencies if they are missing or stale, builds
# rollmem if dist/ is missing or older than src/, then runs the bench.
# Everything but the results goes to stderr, so `npm run --silent bench -- --json > bench.json` works.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f bench/node_modules/.package-lock.json ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then
  npm ci --prefix bench --no-audit --no-fund >&2
fi
if [ ! -f dist/index.js ] || [ ! -f dist/tokenizers.js ] || [ -n "$(find src -newer dist/index.js -print -quit)" ]; then
  npm run build >&2
fi
exec node --expose-gc --import tsx bench/index.ts "$@"
