#!/usr/bin/env bash
# `npm run bench`: the benchmarks, with the throwaway PostgreSQL of scripts/services.sh for the
# PostgreSQL store scenarios (stopped afterwards; the runner's exit code is kept).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=/dev/null
source scripts/services.sh
status=0
node --import tsx bench/run.ts || status=$?
exit "$status"
