#!/usr/bin/env bash
# Quality per bit (issues 23, 30): each stereo clip converted at several CRFs with the default (the multiview x265
# set-up installs: inter-layer prediction, equal quality), and assembled with `--eye-quality equal` and `asymmetric`
# (the default before issue 30), per-eye bitrate against PSNR-Y, SSIM and
# VMAF (when the FFmpeg build has libvmaf) of each decoded eye against its source eye, and the combined stereo figure.
# Writes Benchmarks/quality_per_bit.md (the table), Benchmarks/quality_per_bit.svg (the curves) and a JSON of the
# rows in the work directory; RESULTS.md quotes them.
# --multiview-x265 FILE names another multiview library (SPATIAL_MEDIA_X265) for the default rows.
# Usage: bash Benchmarks/quality_per_bit.sh [--crfs 18,23,28] [--frames 30] [--work DIR] [--multiview-x265 FILE]
# Needs FFmpeg ≥ 7.1 with psnr/ssim filters: FFMPEG, else the oracle venv's FFmpeg 9, else .tools/bin/ffmpeg.
set -euo pipefail
cd "$(dirname "$0")/.."
CRFS=18,23,28; FRAMES=30; WORK=""; MV=()
while [ $# -gt 0 ]; do
  case "$1" in
    --crfs) CRFS=$2; shift 2 ;;
    --frames) FRAMES=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --multiview-x265) MV=(--multiview-x265 "$2"); shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
source Benchmarks/common.sh
FF="${FFMPEG:-}"
[ -z "$FF" ] && for c in .venv-oracles/lib/python3.11/site-packages/imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2 .tools/bin/ffmpeg; do
  [ -x "$c" ] && { FF=$c; break; }
done
[ -n "$FF" ] || { echo "quality_per_bit: no FFmpeg (set FFMPEG)" >&2; exit 1; }
if [ -z "$WORK" ]; then WORK=$(mktemp -d /tmp/qpb.XXXXXX); trap 'rm -rf "$WORK"' EXIT; fi
echo "== quality per bit: CRFs $CRFS, $FRAMES frames of the rendered scene, $("$BIN" --version 2>/dev/null | head -1)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)"
python3 Benchmarks/quality_per_bit.py --bin "$BIN" --ffmpeg "$FF" --work "$WORK" --crfs "$CRFS" --frames "$FRAMES" \
  --markdown Benchmarks/quality_per_bit.md --svg Benchmarks/quality_per_bit.svg --json "$WORK/rows.json" "${MV[@]}"
