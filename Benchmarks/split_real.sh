#!/usr/bin/env bash
# split benchmark (issue 17): `spatial-media split VIDEO --sbs OUT.mp4` against the hand-made FFmpeg pipeline a user
# would type (two vpos maps, hstack, libx265 at the same CRF and preset), on inter-layer-predicted MV-HEVC at 1080p
# and 4K per eye. Both sides run in the same invocation; prints ROW lines for Benchmarks/run.sh.
#
# The source is made here: a rendered stereo scene (FFmpeg lavfi, the right eye shifted) encoded as MV-HEVC by our
# own `convert`, so its layers are independent — and, for the inter-layer case, the x265 multiview fixture when
# ../shared is present. Usage: bash Benchmarks/split_real.sh [--frames N] [--preset P] [--sizes "1920x1080 3840x2160"]
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES=30; PRESET=ultrafast; CRF=18; SIZES="1920x1080 3840x2160"
source Benchmarks/common.sh
bench_tools split-bench "$@"
# Ours (`split --sbs`) and the peer (FFmpeg vpos + hstack + libx265) on SOURCE; prints the line and the ROW.
compare() {  # SOURCE LABEL
  local src=$1 label=$2 ot orss pt prss ratio
  measure "$W/ours" "$BIN" split "$src" --sbs "$W/ours.mp4" --crf $CRF --preset $PRESET
  measure "$W/peer" "$FF" -v error -y -i "$src" -filter_complex "[0:v:0:vpos:left][0:v:0:vpos:right]hstack[v]" -map "[v]" \
    -c:v libx265 -crf $CRF -preset $PRESET -x265-params log-level=error -tag:v hvc1 "$W/peer.mp4"
  read -r ot orss < "$W/ours"; read -r pt prss < "$W/peer"
  ratio=$(awk -v a="$ot" -v b="$pt" 'BEGIN{printf "%.2f", a/b}')
  echo "split $label, x265 $PRESET CRF $CRF: ours ${ot}s (${orss} MB), ffmpeg vpos+hstack+libx265 ${pt}s (${prss} MB): ${ratio}x"
  row "split $label → SBS" "${ot} s" "${pt} s" "${ratio}x" "≤ 1.1x" "${orss} / ${prss} MB"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 shared cores: wall-clock ratios move with other load)"
for size in $SIZES; do
  w=${size%x*}; h=${size#*x}
  # A textured scene with parallax: the right eye sees the picture shifted by 1 % of the width.
  shift_px=$((w / 100))
  "$FF" -v error -y -f lavfi -i "testsrc2=size=$((w + shift_px))x$h:rate=30" -frames:v "$FRAMES" \
    -filter_complex "[0:v]split[a][b];[a]crop=$w:$h:0:0[l];[b]crop=$w:$h:$shift_px:0[r];[l][r]hstack" \
    -pix_fmt yuv420p -f yuv4mpegpipe "$W/sbs.y4m"
  "$BIN" convert "$W/sbs.y4m" -o "$W/src.mov" --preset ultrafast >/dev/null 2>&1
  compare "$W/src.mov" "${size}/eye ($FRAMES frames)"
done
if [ -f ../shared/fixtures/x265mv_320x240_30f_spatial.mov ]; then
  compare ../shared/fixtures/x265mv_320x240_30f_spatial.mov "x265 multiview 320x240 (inter-layer predicted, 30 frames)"
fi
