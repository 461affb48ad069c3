#!/bin/sh
# The full generated sweep of the stereo diagnosis (every fault alone at three magnitudes and in pairs, and issue 31's
# everyday magnitudes at 1280×960: toe-in/out 0.5/1/2°, shift 10/20/40 px, off-centre crop 30/60 px, each alone and
# with a vertical offset), then OpenCV's independent residual measurement of every aligned pair. Prints both tables
# (for Benchmarks/RESULTS.md).
set -e
cd "$(dirname "$0")/.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/dump"
swift build --build-tests >/dev/null
SPATIAL_SWEEP=full SPATIAL_SWEEP_DUMP="$T/dump" SPATIAL_SWEEP_OUT="$T/table.md" \
  swift test --skip-build --filter GeometrySweepTests >/dev/null 2>&1 || true
cat "$T/table.md"
echo
.venv-oracles/bin/python Benchmarks/stereo_cv.py residual-dir "$T/dump"
