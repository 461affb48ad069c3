#!/usr/bin/env bash
# Runs every benchmark of the project in one go and ends with one table: ours vs the named peer, ratio,
# goal, peak RSS. Each script measures ours and the peer in the same run (these machines are noisy) and
# prints `ROW|…` lines, which this script collects. Full output goes to bench-out/run-<date>.log; the
# table is what Benchmarks/RESULTS.md records, with the machine and the date.
#
#   bash Benchmarks/run.sh            # everything (about 15 minutes on 2 cores)
#   KILL_TRIALS=25 bash Benchmarks/run.sh
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench-out
log="bench-out/run-$(date -u +%Y%m%dT%H%MZ).log"
source Benchmarks/common.sh
{
  echo "# machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr), $(swift --version 2>&1 | head -1)"
  echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
} | tee "$log"
run() {
  local title="$1"; shift
  echo; echo "## $title"
  "$@" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || echo "(failed: $*)"
}
{
  run "info: vs FFmpeg 9 and pymediainfo; sparse > 4 GiB movie" bash Benchmarks/info.sh
  run "in-place edit of a > 4 GiB movie vs FFmpeg 9 -c copy remux" bash Benchmarks/edit.sh
  run "files over 4 GiB: time and peak RSS" bash Benchmarks/large_files.sh
  run "Annex-B NAL scanning vs FFmpeg 9" bash Benchmarks/nal_scan.sh
  run "photo decode vs pillow-heif; 12 MP encode" bash Benchmarks/photo.sh
  run "default convert vs FFmpeg 9 crop + 2×libx265 (camera and rendered, 1080 and 4K per eye)" bash Benchmarks/convert_peer.sh --presets "fast medium"
  run "conversion at real sizes (MKV H.264 SBS) vs ffmpeg + two x265 CLI" bash Benchmarks/convert_real.sh
  run "split of spatial videos vs FFmpeg vpos+hstack+libx265 (1080p and 4K per eye)" bash Benchmarks/split_real.sh
  run "frame-packed split (movies, packed JPEG, MPO) vs FFmpeg crop pipelines" bash Benchmarks/split_framepacked.sh
  run "sphere conversion (VR180/360 → MV-HEVC APMP) vs FFmpeg crop + 2×libx265 + assembly" bash Benchmarks/sphere_convert.sh
  run "stereo measurement vs OpenCV; metadata validation rate" bash Benchmarks/validate.sh
  run "kill safety" python3 scripts/kill_safety.py "$BIN" bench-out/kill-work "${KILL_TRIALS:-25}"
} 2>&1 | tee -a "$log"
{
  echo
  echo "## Table"
  echo
  echo "| benchmark | ours | peer | ratio | goal | peak RSS (ours / peer) |"
  echo "|---|---|---|---|---|---|"
  grep -E '^ROW\|' "$log" | awk -F'|' '{ printf "|"; for (i = 2; i <= NF; i++) printf " %s |", $i; print "" }'
} | tee -a "$log"
echo
echo "full output: $log"
