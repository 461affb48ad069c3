#!/usr/bin/env bash
# Frame-packed split benchmark (issue 33 part 2): `spatial-media split` of frame-packed movies and packed / MPO
# images against the FFmpeg command lines a user would type for the same result, both in the same invocation.
#
# Movies: one FFmpeg run that splits the picture, crops each half and encodes each eye with libx265 at the same CRF
# and preset, audio copied (`-filter_complex "[0:v]split[a][b];[a]crop=…[l];[b]crop=…[r]" -map [l] … -map [r] …`).
# Images: FFmpeg's crop + MJPEG encode per eye (`-q:v 2`); the system has no jpegtran, so the peer re-encodes where
# ours cuts without decoding (libjpeg-turbo's lossless crop). Prints ROW lines for Benchmarks/run.sh.
#
# Sources: a generated side-by-side H.264 movie with audio (FFmpeg testsrc2, SIZE per eye) always; the corpus VR360
# movie (1080×1080 top-bottom, 12 s) and the corpus SBS JPEGs and MPO when ../shared is present.
# Each side runs REPEAT times (default 3), alternating with the other; the median run of each is reported.
# Usage: [REPEAT=N] bash Benchmarks/split_framepacked.sh [--frames N] [--preset P] [--sizes "1920x1080"]
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES=60; PRESET=ultrafast; CRF=18; SIZES="1920x1080"
source Benchmarks/common.sh
bench_tools split-fp-bench "$@"
# Runs ours and the peer REPEAT times, alternating (the machine is shared and noisy), keeping the median run of each
# in $W/ours and $W/peer. The commands are the arrays OURS and PEER.
REPEAT=${REPEAT:-3}
both() {
  local k
  for k in $(seq "$REPEAT"); do measure "$W/ours.$k" "${OURS[@]}"; measure "$W/peer.$k" "${PEER[@]}"; done
  for side in ours peer; do
    for k in $(seq "$REPEAT"); do cat "$W/$side.$k"; done | sort -n | sed -n "$(( (REPEAT + 1) / 2 ))p" > "$W/$side"
  done
}
# Prints the comparison line and the ROW from the two medians.
report() {  # LABEL PEERNAME GOAL
  local ot orss pt prss ratio
  read -r ot orss < "$W/ours"; read -r pt prss < "$W/peer"
  ratio=$(awk -v a="$ot" -v b="$pt" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "n/a" }')
  echo "$1: ours ${ot}s (${orss} MB), $2 ${pt}s (${prss} MB): time ratio ${ratio}"
  row "$1" "${ot} s" "$2: ${pt} s" "${ratio}x the time" "$3" "${orss} / ${prss} MB"
}
# PSNR (dB, average) of an eye against FFmpeg's crop of the source.
psnr() {  # EYE SOURCE CROP
  "$FF" -hide_banner -i "$1" -i "$2" -filter_complex "[1:v]$3[r];[0:v][r]psnr" -f null - 2>&1 | sed -n 's/.*average:\([0-9.a-z]*\).*/\1/p' | tail -1
}
# A frame-packed movie split per eye: ours and the one-run FFmpeg pipeline.
movie() {  # SOURCE LABEL LAYOUT(sbs|tb) [extra split options]
  local src=$1 label=$2 layout=$3; shift 3
  local l r
  if [ "$layout" = sbs ]; then l="crop=iw/2:ih:0:0"; r="crop=iw/2:ih:iw/2:0"; else l="crop=iw:ih/2:0:0"; r="crop=iw:ih/2:0:ih/2"; fi
  local enc=(-c:v libx265 -crf $CRF -preset $PRESET -x265-params log-level=error -pix_fmt yuv420p -tag:v hvc1)
  OURS=("$BIN" split "$src" "$@" --left "$W/ol.mp4" --right "$W/or.mp4" --crf $CRF --preset $PRESET)
  PEER=("$FF" -nostdin -v error -y -i "$src" -filter_complex "[0:v:0]split[a][b];[a]$l[l];[b]$r[r]"
        -map "[l]" -map "0:a?" -c:a copy "${enc[@]}" "$W/pl.mp4" -map "[r]" -map "0:a?" -c:a copy "${enc[@]}" "$W/pr.mp4")
  both
  report "split $label → one movie per eye (x265 $PRESET CRF $CRF)" "ffmpeg split+crop+libx265" "≤ 1.1x"
  echo "  PSNR against FFmpeg's crop of the source: left $(psnr "$W/ol.mp4" "$src" "$l") dB, right $(psnr "$W/or.mp4" "$src" "$r") dB (peer: $(psnr "$W/pl.mp4" "$src" "$l") / $(psnr "$W/pr.mp4" "$src" "$r") dB)"
}
# A packed JPEG split per eye: ours (lossless crop where the split line is on the MCU grid) and FFmpeg's crop + MJPEG.
image() {  # SOURCE LABEL W H (eye size) RIGHTX RIGHTY
  local src=$1 label=$2 w=$3 h=$4 rx=$5 ry=$6
  OURS=("$BIN" split "$src" --left "$W/il.jpg" --right "$W/ir.jpg")
  PEER=("$FF" -nostdin -v error -y -i "$src" -filter_complex "[0:v]split[a][b];[a]crop=$w:$h:0:0[l];[b]crop=$w:$h:$rx:$ry[r]"
        -map "[l]" -q:v 2 -frames:v 1 -update 1 "$W/jl.jpg" -map "[r]" -q:v 2 -frames:v 1 -update 1 "$W/jr.jpg")
  both
  report "split $label → two JPEGs" "ffmpeg crop + MJPEG -q:v 2" "≤ 1.1x"
  echo "  PSNR against FFmpeg's crop of the source: ours left $(psnr "$W/il.jpg" "$src" "crop=$w:$h:0:0") dB (lossless crop: inf), peer left $(psnr "$W/jl.jpg" "$src" "crop=$w:$h:0:0") dB"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 shared cores: wall-clock ratios move with other load)"
for size in $SIZES; do
  w=${size%x*}; h=${size#*x}
  "$FF" -nostdin -v error -y -f lavfi -i "testsrc2=size=$((2 * w))x$h:rate=30" -f lavfi -i "sine=r=48000" -frames:v "$FRAMES" \
    -c:v libx264 -preset ultrafast -crf 12 -pix_fmt yuv420p -c:a aac -shortest "$W/sbs.mp4"
  movie "$W/sbs.mp4" "generated SBS H.264 ${size}/eye ($FRAMES frames, audio)" sbs --layout sbs
done
if [ -f ../shared/corpus/spherical/testRoom1_1080Stereo.mp4 ]; then
  movie ../shared/corpus/spherical/testRoom1_1080Stereo.mp4 "corpus VR360 testRoom1 (1080×1080 TB H.264, 360 frames)" tb
fi
if [ -f ../shared/corpus/sbs/Panasonic-DMC-GX8.jpg ]; then
  image ../shared/corpus/sbs/Panasonic-DMC-GX8.jpg "Panasonic-DMC-GX8.jpg (3648×1368 SBS, 4:2:0)" 1824 1368 1824 0
fi
if [ -f ../shared/corpus/sbs/capoda.left-right.jpg ]; then
  image ../shared/corpus/sbs/capoda.left-right.jpg "capoda.left-right.jpg (8192×4096 SBS, progressive 4:4:4)" 4096 4096 4096 0
fi
if [ -f ../shared/corpus/mpo/frozenpond.mpo ]; then
  OURS=("$BIN" split ../shared/corpus/mpo/frozenpond.mpo --left "$W/ml.jpg" --right "$W/mr.jpg")
  PEER=("$FF" -nostdin -v error -y -f jpeg_pipe -i ../shared/corpus/mpo/frozenpond.mpo -q:v 2 "$W/m%d.jpg")
  both
  report "split frozenpond.mpo (2×640×480) → two JPEGs" "ffmpeg jpeg_pipe + MJPEG -q:v 2" "≤ 1.1x"
fi
