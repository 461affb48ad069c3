#!/usr/bin/env bash
# Benchmark: in-place spatial-metadata edit of a sparse > 4 GiB movie vs an FFmpeg 9 `-c copy` remux.
set -euo pipefail
cd "$(dirname "$0")/.."
FFMPEG=$(bash Benchmarks/oracles.sh)
source Benchmarks/common.sh
mkdir -p bench-out
[ -f bench-out/sparse.mov ] || python3 Benchmarks/make_sparse_movie.py bench-out/sparse.mov 200000 $(( (4 << 30) + (256 << 20) )) ../shared/corpus/spatial-video/stereo_spatial.mp4
python3 Benchmarks/edit_bench.py "$BIN" "$FFMPEG" bench-out/sparse.mov bench-out/edit-work
