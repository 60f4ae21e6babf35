#!/usr/bin/env bash
# Fetch ONNX Runtime's shared library for linux-x64 from the npm package onnxruntime-node
# (the npm registry is reachable where GitHub is not), check the tarball's SHA-256, and
# print the library's path. Idempotent: a library already in place is reused.
#
#   scripts/ort-install.sh [DIR]     (default: .ort/ in the checkout)
#
# The ONNX Runtime backend (build tag ort) loads the printed path from ONNXRUNTIME_LIB.
set -euo pipefail

VERSION=1.30.0
SHA256=6e3390d6b783e7be946fad629292799da28d0b42f84856e50d2c1b0383291e75
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-$ROOT/.ort}
LIB=$DEST/libonnxruntime.so.$VERSION

if [ -s "$LIB" ]; then
  echo "$LIB"
  exit 0
fi
case "$(uname -sm)" in
  "Linux x86_64") ;;
  *) echo "ort-install: only linux x86_64 is packaged here, not $(uname -sm)" >&2; exit 1 ;;
esac
mkdir -p "$DEST"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
url=https://registry.npmjs.org/onnxruntime-node/-/onnxruntime-node-$VERSION.tgz
echo "ort-install: fetching $url" >&2
curl -sSfL --retry 3 -o "$tmp/ort.tgz" "$url"
echo "$SHA256  $tmp/ort.tgz" | sha256sum -c --quiet - >&2
tar -xzf "$tmp/ort.tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
mv "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$LIB.part"
mv "$LIB.part" "$LIB"
echo "$LIB"
