#!/usr/bin/env bash
# Write the real-shape benchmark models (MiniLM-L6: 6 layers, hidden 384, 12 heads,
# vocabulary 30522, random weights) into .models/, once. Needs Debian's python3-onnx and
# python3-numpy, installed with apt when missing (root).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
if ! $PY -c 'import onnx, numpy' 2>/dev/null; then
  echo "bench-models: installing python3-onnx and python3-numpy" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-onnx python3-numpy >/dev/null
fi
shape=(--layers 6 --hidden 384 --heads 12 --intermediate 1536 --vocab 30522 --max-pos 512)
for kind in embedder cross-encoder; do
  dir=$ROOT/.models/minilm-l6-$kind
  if [ -s "$dir/model.onnx" ]; then continue; fi
  maxseq=256
  [ $kind = cross-encoder ] && maxseq=512
  echo "bench-models: writing $dir" >&2
  $PY "$ROOT/scripts/gen-models.py" "$dir.part" --kind $kind "${shape[@]}" --max-seq $maxseq
  rm -rf "$dir" && mv "$dir.part" "$dir"
done
