#!/usr/bin/env bash
# Runs the whole suite with node's own test runner. Services the tests need are
# started (and, on a fresh machine, installed) by scripts/services.sh when present.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f scripts/services.sh ]; then
  # shellcheck source=/dev/null
  source scripts/services.sh
fi
# Servers a test starts without a store use memory, so test files running side by side never
# share a SQLite file (tests of the default store set their own).
export A2A_STORE="${A2A_STORE:-memory}"
if [ "$#" -gt 0 ]; then files=("$@"); else mapfile -t files < <(find test -name '*.test.ts' | sort); fi
# Not exec: the EXIT trap of services.sh stops the services afterwards; the runner's code is kept.
status=0
# A file that hangs fails by name after 15 minutes (the slowest takes about two), and the runner
# exits once every file is done: a process a test left behind holding the file's stdout pipe
# would otherwise keep the runner waiting on it forever (a CI run ended at its time limit so).
node --import tsx --test --test-concurrency=2 --test-timeout=900000 --test-force-exit "${files[@]}" || status=$?
exit "$status"
