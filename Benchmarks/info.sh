#!/usr/bin/env bash
# Benchmark: `spatial-media info` vs FFmpeg 9 and pymediainfo on the corpus, and on a sparse > 4 GiB movie.
# Not part of the test suite (timings are noisy); prints ratios measured in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
FFMPEG=$(bash Benchmarks/oracles.sh)
source Benchmarks/common.sh
mkdir -p bench-out
[ -f bench-out/sparse.mov ] || python3 Benchmarks/make_sparse_movie.py bench-out/sparse.mov 200000 $(( (4 << 30) + (256 << 20) )) ../shared/corpus/spatial-video/stereo_spatial.mp4
.venv-oracles/bin/python Benchmarks/info_bench.py "$BIN" "$FFMPEG" .venv-oracles/bin/python bench-out/sparse.mov
