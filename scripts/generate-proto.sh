#!/usr/bin/env bash
# Regenerates src/bindings/grpc/gen from proto/ with the local buf and protoc-gen-es (no network).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf src/bindings/grpc/gen src/bindings/compat-v03/gen
PATH="$PWD/node_modules/.bin:$PATH" buf generate
# The v0.3 compatibility layer's package a2a.v1 (issue 14).
PATH="$PWD/node_modules/.bin:$PATH" buf generate --template buf.gen.compat-v03.yaml
