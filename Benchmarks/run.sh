#!/usr/bin/env bash
# Runs every benchmark of the project in one go and prints one table: ours vs the named peer, ratio, peak
# RSS. Timings are noisy on shared machines: each script measures ours and the peer in the same run.
# Results are summarised by hand in Benchmarks/RESULTS.md with the machine and the date.
set -uo pipefail
cd "$(dirname "$0")/.."
echo "# machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr), $(swift --version 2>&1 | head -1)"
echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
run() { echo; echo "## $1"; shift; "$@" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || echo "(failed: $*)"; }
run "info: vs FFmpeg 9 and pymediainfo; sparse > 4 GiB movie" bash Benchmarks/info.sh
run "in-place edit of a > 4 GiB movie vs FFmpeg 9 -c copy remux" bash Benchmarks/edit.sh
run "files over 4 GiB: time and peak RSS" bash Benchmarks/large_files.sh
[ -x Benchmarks/nal_scan.sh ] && run "Annex-B NAL scanning vs ffmpeg -c copy" bash Benchmarks/nal_scan.sh
[ -x Benchmarks/photo.sh ] && run "photo decode/encode vs pillow-heif" bash Benchmarks/photo.sh
[ -x Benchmarks/convert.sh ] && run "video conversion vs two x265 CLI encodes" bash Benchmarks/convert.sh
[ -x Benchmarks/validate.sh ] && run "stereo measurement vs OpenCV" bash Benchmarks/validate.sh
echo
echo "## kill safety"
swift build -c release --static-swift-stdlib --product spatial-media >/dev/null 2>&1
python3 scripts/kill_safety.py "$(swift build -c release --static-swift-stdlib --show-bin-path)/spatial-media" bench-out/kill-work 25
