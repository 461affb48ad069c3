#!/usr/bin/env bash
# Files over 4 GiB: info, in-place edit, rewrite-path edit and rewrite on a sparse movie (time, peak RSS).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --static-swift-stdlib --product spatial-media >/dev/null 2>&1
BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/spatial-media"
mkdir -p bench-out
[ -f bench-out/sparse.mov ] || python3 Benchmarks/make_sparse_movie.py bench-out/sparse.mov 200000 $(( (4 << 30) + (256 << 20) )) ../shared/corpus/spatial-video/stereo_spatial.mp4
python3 Benchmarks/large_files.py "$BIN" bench-out/sparse.mov bench-out/large-work
