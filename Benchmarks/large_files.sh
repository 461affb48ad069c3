#!/usr/bin/env bash
# Files over 4 GiB: info, in-place edit, rewrite-path edit, rewrite and validate on a sparse movie, and
# info, validate, split, rewrite and edit on a sparse spatial photo with 64-bit iloc offsets (time, peak RSS).
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/common.sh
mkdir -p bench-out
[ -f bench-out/sparse.mov ] || python3 Benchmarks/make_sparse_movie.py bench-out/sparse.mov 200000 $(( (4 << 30) + (256 << 20) )) ../shared/corpus/spatial-video/stereo_spatial.mp4
photo=../shared/corpus/spatial-photo/vision-pro.HEIC
heic=()
if [ -f "$photo" ]; then
  [ -f bench-out/sparse.heic ] || python3 Benchmarks/make_sparse_heic.py "$photo" bench-out/sparse.heic
  heic=(bench-out/sparse.heic "$photo")
fi
python3 Benchmarks/large_files.py "$BIN" bench-out/sparse.mov bench-out/large-work "${heic[@]}"
