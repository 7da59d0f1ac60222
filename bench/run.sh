#!/usr/bin/env bash
# `npm run bench [-- --json | --quick | --only=replay,checks,peers,scaling,tokenizers,memory,policies,stores,formats,background,tracing,cluster,recall,lines]`
# Installs the bench's own dependencies if they are missing or stale, builds
# rollmem if dist/ is missing or older than src/ (and the Effect 4 line for section "lines"), then runs the bench.
# Everything but the results goes to stderr, so `npm run --silent bench -- --json > bench.json` works.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f bench/node_modules/.package-lock.json ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then
  npm ci --prefix bench --no-audit --no-fund >&2
fi
if [ ! -f dist/index.js ] || [ ! -f dist/tokenizers.js ] || [ -n "$(find src -newer dist/index.js -print -quit)" ]; then
  npm run build >&2
fi
# the Effect 4 line (section "lines"): its own install, and its build when missing or older than its sources or the core
if [ ! -f effect4/node_modules/.package-lock.json ] || [ effect4/package-lock.json -nt effect4/node_modules/.package-lock.json ]; then
  npm ci --prefix effect4 --no-audit --no-fund >&2
fi
if [ ! -f effect4/dist/effect4/src/index.js ] || [ -n "$(find effect4/src src/core -newer effect4/dist/effect4/src/index.js -print -quit)" ]; then
  npm run build --prefix effect4 >&2
fi
exec node --expose-gc --import tsx bench/index.ts "$@"
