#!/usr/bin/env bash
# Regenerates src/bindings/grpc/gen from proto/ with the local buf and protoc-gen-es (no network).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf src/bindings/grpc/gen
PATH="$PWD/node_modules/.bin:$PATH" buf generate
