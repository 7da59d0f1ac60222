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
# (installed when a package of its lockfile is missing or at another version: by content, not by file times,
# so a checkout whose lockfile is newer than an install it shares is not reinstalled)
if ! node -e '
  const fs = require("node:fs")
  const lock = JSON.parse(fs.readFileSync("effect4/package-lock.json", "utf8"))
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where === "" || entry.optional || entry.link) continue
    let version
    try { version = JSON.parse(fs.readFileSync(`effect4/${where}/package.json`, "utf8")).version } catch { process.exit(1) }
    if (version !== entry.version) process.exit(1)
  }' 2>/dev/null; then
  npm ci --prefix effect4 --no-audit --no-fund >&2
fi
if [ ! -f effect4/dist/effect4/src/index.js ] || [ -n "$(find effect4/src src/core -newer effect4/dist/effect4/src/index.js -print -quit)" ]; then
  npm run build --prefix effect4 >&2
fi
exec node --expose-gc --import tsx bench/index.ts "$@"
