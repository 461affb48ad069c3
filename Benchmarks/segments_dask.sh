#!/usr/bin/env bash
# Segment-parallel conversion on Dask (issue 24): a 600-frame side-by-side clip (640×360 per eye, 24 fps, H.264
# MP4 with AAC audio, made by FFmpeg) converted in 4 segments on a 2-worker LocalCluster by
# examples/dask/convert_segments.py, then joined; against the same conversion in one process (--compare): wall
# times, and both views' frame md5 (FFmpeg 9) of the joined file against the one-process file.
# Settings: preset medium, --qp 28, keyint 48 (2 s), 3 B-frames. Needs network for pip (dask) unless DASK_VENV
# names a virtual environment that has the wheel and dask[distributed].
#
#   bash Benchmarks/segments_dask.sh                  # builds the wheel
#   WHEEL=dist/spatialmedia-….whl bash Benchmarks/segments_dask.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
frames="${FRAMES:-600}"
work=$(mktemp -d "${TMPDIR:-/tmp}/sm-segments-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
ff="${FFMPEG:-}"
for c in "$root/.tools/bin/ffmpeg" "$root"/.venv-oracles/lib/python3*/site-packages/imageio_ffmpeg/binaries/ffmpeg-*; do
  if [ -z "$ff" ] && [ -x "$c" ]; then ff="$c"; fi
done
[ -n "$ff" ] || { echo "segments_dask: no FFmpeg 9 (run scripts/setup.sh)" >&2; exit 1; }
venv="${DASK_VENV:-}"
if [ -z "$venv" ]; then
  wheel="${WHEEL:-}"
  if [ -z "$wheel" ]; then
    python3 -m venv "$work/build" && "$work/build/bin/pip" wheel --no-deps -q -w "$work/dist" . > "$work/wheel.log" 2>&1 \
      || { tail -30 "$work/wheel.log"; exit 1; }
    wheel=$(ls "$work"/dist/spatialmedia-*.whl | head -1)
  fi
  venv="$work/venv"
  python3 -m venv "$venv" && "$venv/bin/pip" install -q "$wheel" "dask[distributed]" > "$work/install.log" 2>&1 \
    || { tail -30 "$work/install.log"; exit 1; }
fi
"$ff" -v error -y -f lavfi -i "testsrc2=size=640x360:rate=24" -f lavfi -i "mandelbrot=size=640x360:rate=24" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000" -filter_complex "[0:v][1:v]hstack[v]" -map "[v]" -map 2:a \
  -frames:v "$frames" -t "$(echo "$frames / 24" | bc -l)" -c:v libx264 -crf 12 -preset veryfast -pix_fmt yuv420p \
  -c:a aac -b:a 128k "$work/sbs.mp4"
echo "segments_dask: $frames frames of 2×640×360, 4 segments, 2-worker LocalCluster, preset medium, qp 28, keyint 48" >&2
SPATIAL_MEDIA_FFMPEG="$ff" "$venv/bin/python" examples/dask/convert_segments.py "$work/sbs.mp4" -o "$work/joined.mov" \
  --segments 4 --workers 2 --qp 28 --keyint 48 --preset medium --compare --ffmpeg "$ff" > "$work/summary.json"
cat "$work/summary.json"
"$venv/bin/python" - "$work/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
same = all(s["views_identical_to_one_process"].values())
print(f"ROW|segment-parallel conversion, {s['frames']} frames in 4 segments on a 2-worker Dask LocalCluster, then concat"
      f"|{s['seconds']:.1f} s (join {s['join_seconds']:.2f} s; {s['segments_cpu_seconds']:.0f} CPU s in the segments)"
      f"|one process (run first): {s['one_process_seconds']:.1f} s, {s['one_process_cpu_seconds']:.0f} CPU s"
      f"|{s['speedup']:.2f}x|both views identical: {'met' if same else 'MISSED'}"
      f" (whole file byte-identical: {'yes' if s['file_identical_to_one_process'] else 'no'})|—")
PY
