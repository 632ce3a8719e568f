#!/usr/bin/env bash
# Regenerates libs/proto/src/gen from proto/ with buf + ts-proto (no protoc needed).
# The generated code is committed; `npm test` fails when it is stale (libs/proto/src/freshness.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf libs/proto/src/gen
npx --no-install buf lint
npx --no-install buf generate
