#!/usr/bin/env bash
# `npm run bench`: the benchmarks, with the throwaway PostgreSQL of scripts/services.sh for the
# PostgreSQL store scenarios (stopped afterwards; the runner's exit code is kept).
set -euo pipefail
cd "$(dirname "$0")/.."
# A2A_BENCH_POSTGRES_URL names a server of your own; then no throwaway cluster is started.
if [ -n "${A2A_BENCH_POSTGRES_URL:-}" ]; then export A2A_TEST_POSTGRES_URL="$A2A_BENCH_POSTGRES_URL"; fi
# shellcheck source=/dev/null
source scripts/services.sh
status=0
node --import tsx bench/run.ts || status=$?
exit "$status"
