#!/usr/bin/env bash
# Builds Sightline's OCI image from the Dockerfile with buildah (daemonless, from
# Debian: `apt-get install buildah debootstrap`), as root.
#
#   tools/image/build-image.sh [tag]            default tag localhost/sightline:dev
#
# NODE_IMAGE=<ref>  the Dockerfile's base (default: node:20.19-bookworm-slim, pulled).
#                   Where no registry is reachable (this repository's CI machine),
#                   set NODE_IMAGE=local: a base is made here instead, Debian
#                   bookworm (minbase, debootstrap from the Debian mirror) plus this
#                   machine's Node 20 and npm, tagged localhost/sightline-node-base.
# EMBEDDED_CLICKHOUSE=false  leave chDB out (deployments on a ClickHouse server).
# BUILDAH_STORAGE_DRIVER     default vfs: works everywhere, overlay is faster where allowed.
#
# The CA bundle of NODE_EXTRA_CA_CERTS (a TLS-inspecting proxy) is handed to the
# build's `npm ci` as a secret: mounted for that step, never stored in a layer.
set -euo pipefail
cd "$(dirname "$0")/../.."

tag="${1:-localhost/sightline:dev}"
driver="${BUILDAH_STORAGE_DRIVER:-vfs}"
buildah=(buildah --storage-driver "$driver")
base="${NODE_IMAGE:-node:20.19-bookworm-slim}"
local_base=localhost/sightline-node-base:20-bookworm

build_local_base() {
  if "${buildah[@]}" inspect --type image "$local_base" >/dev/null 2>&1; then return; fi
  local rootfs
  rootfs="$(mktemp -d)"
  echo "image: making $local_base (debootstrap bookworm minbase + node $(node --version))"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >/dev/null
  # the layout of the official node image: node and npm under /usr/local
  install -D -m 0755 "$(command -v node)" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  local ctr mnt
  ctr="$("${buildah[@]}" from scratch)"
  mnt="$("${buildah[@]}" mount "$ctr")"
  cp -a "$rootfs/." "$mnt/"
  "${buildah[@]}" umount "$ctr" >/dev/null
  "${buildah[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node "$ctr"
  "${buildah[@]}" commit -q --rm "$ctr" "$local_base" >/dev/null
  rm -rf "$rootfs"
}

if [ "$base" = "local" ]; then
  build_local_base
  base="$local_base"
fi

secret=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -s "$NODE_EXTRA_CA_CERTS" ]; then
  secret=(--secret "id=npm_ca,src=$NODE_EXTRA_CA_CERTS")
fi

started=$(date +%s)
"${buildah[@]}" bud --isolation chroot --layers=false --quiet \
  --build-arg "NODE_IMAGE=$base" \
  --build-arg "EMBEDDED_CLICKHOUSE=${EMBEDDED_CLICKHOUSE:-true}" \
  "${secret[@]}" -t "$tag" . >/dev/null
size=$("${buildah[@]}" images --format '{{.Size}}' "$tag" | head -n1)
echo "image: built $tag from $base in $(( $(date +%s) - started ))s, size $size"
