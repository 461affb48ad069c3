#!/usr/bin/env bash
# Benchmark of `spatial-media validate` (issue 8):
#  1. stereo-geometry measurement on the 2560×2560 Vision Pro pair: ours (release build, measurement stage only,
#     from the JSON timings) versus OpenCV ORB + ratio test + RANSAC fundamental matrix on the same decoded pair
#     (Tests/Oracles/stereo_oracle.py, its own timer around detection+matching+RANSAC), one run each, time ratio
#     (goal ≤ 2×) and agreement of the vertical-disparity numbers;
#  2. metadata-only validation rate over the corpus (`--no-pixels`, directory mode; goal ≥ 500 files/s).
# Needs the oracle venv (bash Benchmarks/oracles.sh) for part 1's OpenCV side; skips it otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIR=${PAIR:-../shared/corpus/spatial-photo/vision-pro.HEIC}
CORPUS=${CORPUS:-../shared/corpus}
source Benchmarks/common.sh
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "== geometry: $PAIR"
"$BIN" validate --json "$PAIR" > "$OUT/ours.json" || true
python3 - "$OUT/ours.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g = r["geometry"][0]
t = r.get("timings_seconds", {})
print(f"ours:   decode {t.get('decode', 0):.3f} s, measure {t.get('measure', 0):.3f} s; inliers {g['inliers']}, "
      f"median dy {g['vertical_disparity']['median_px']:.3f} px, median |dy| {g['vertical_disparity']['median_abs_px']:.3f} px, "
      f"p95 |dy| {g['vertical_disparity']['p95_abs_px']:.3f} px, roll {g['rectification']['roll_degrees']:.4f}°")
PY
if [ -x .venv-oracles/bin/python ] && .venv-oracles/bin/python -c "import cv2" 2>/dev/null; then
  .venv-oracles/bin/python Tests/Oracles/stereo_oracle.py --heic "$PAIR" > "$OUT/cv.json"
  python3 - "$OUT/ours.json" "$OUT/cv.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1])); c = json.load(open(sys.argv[2]))
g = o["geometry"][0]; ours_t = o["timings_seconds"]["measure"]
print(f"OpenCV {c['opencv']}: {c['seconds']:.3f} s; inliers {c['inliers']}, median dy {c['median_dy']:.3f} px, "
      f"median |dy| {c['median_abs_dy']:.3f} px, mean dy {c['mean_dy']:.3f} px, p95 |dy| {c['p95_abs_dy']:.3f} px")
print(f"time ratio ours/OpenCV: {ours_t / c['seconds']:.2f}x (goal <= 2x)")
r = ours_t / c['seconds']
print(f"ROW|stereo geometry on the 2560² Vision Pro pair (measurement stage)|{ours_t:.3f} s|OpenCV ORB + RANSAC: {c['seconds']:.3f} s|{r:.2f}x the time|<= 2x: {'met' if r <= 2 else 'missed'}|—")
print(f"median |dy| difference: {abs(g['vertical_disparity']['median_abs_px'] - c['median_abs_dy']):.3f} px "
      "(OpenCV's ORB positions are whole pixels at their pyramid level, so its median is quantised)")
PY
else
  echo "OpenCV oracle not installed (bash Benchmarks/oracles.sh); skipped"
fi

echo "== metadata-only validation rate over $CORPUS"
DIRS=$(find "$CORPUS" -type d)
N=$(find "$CORPUS" -type f | wc -l)
START=$(date +%s.%N)
"$BIN" validate --no-pixels --json $DIRS > "$OUT/meta.json" 2>/dev/null || true
END=$(date +%s.%N)
python3 - "$OUT/meta.json" "$START" "$END" "$N" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); dt = float(sys.argv[3]) - float(sys.argv[2])
r = r if isinstance(r, list) else [r]
kinds = {}
for x in r: kinds[x["kind"]] = kinds.get(x["kind"], 0) + 1
print(f"{len(r)} files in {dt:.2f} s = {len(r)/dt:.0f} files/s (goal >= 500); kinds: {kinds}")
print(f"ROW|metadata-only validation of {len(r)} corpus files (directory mode)|{len(r)/dt:.0f} files/s|—|—|>= 500 files/s: {'met' if len(r)/dt >= 500 else 'missed'}|—")
PY
