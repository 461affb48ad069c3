#!/usr/bin/env bash
# The default encoder against the command a user would type instead (issue 39). One run prints, for every clip, eye
# size and preset: time, bytes and per-eye PSNR-Y of
#   ours      `spatial-media convert IN --layout sbs -o OUT.mov` as set up (the default path: the multiview x265 when
#             scripts/setup.sh built one), CRF 23 for both eyes (--eye-quality equal), keyint 60, 3 B-frames;
#   assembled the same with `--encode-path assembled` (two single-layer encodes, assembled into MV-HEVC);
#   peer      FFmpeg 9 (the oracle environment's, Benchmarks/oracles.sh) decoding IN once and encoding the two
#             cropped eyes with two libx265 outputs in one command, the same CRF, GOP and B-frames.
# The time ratio is ours / peer (medians of --runs alternating runs: the machine may be shared); the bytes ratio
# is ours / peer (the peer writes two bare streams, ours a muxed movie, so ours carries a few kB of boxes more); the
# PSNR is of each decoded eye against the source eye (FFmpeg's psnr filter, luma). Each ROW line is one table row of
# Benchmarks/RESULTS.md ("Default encoder against the peer").
# Clips (nothing downloaded): "camera" — ../shared/corpus/sbs/new.mp4 (real camera video, over-under, 10 frames,
# played forward and back to 60 frames, eyes side by side); "rendered" — a softened Mandelbrot zoom with a moving
# test pattern nearer than it (FFmpeg's lavfi sources), the right eye shifted. Both scaled to the eye size and coded
# as a near-lossless H.264 MP4 (CRF 10), the file a user would hand in.
# --bit-depth 10 (issue 40): the clips are 10-bit HLG BT.2020 (a near-lossless libx265 Main 10 MP4); ours is then the
# default conversion (two Main 10 encodes assembled: the multiview x265 is 8-bit), so the assembled run is skipped,
# and the peer writes two Main 10 outputs (-pix_fmt yuv420p10le); PSNR-Y is computed on the 10-bit samples.
# Usage: bash Benchmarks/convert_peer.sh [--presets "ultrafast fast medium slow"] [--sizes "1080 2160"] [--runs N]
#        [--frames N] [--clips "camera rendered"] [--bit-depth 8|10]
set -euo pipefail
cd "$(dirname "$0")/.."
PRESETS="ultrafast fast medium slow"; SIZES="1080 2160"; RUNS=3; FRAMES=60; CLIPS="camera rendered"; DEPTH=8
while [ $# -gt 0 ]; do
  case "$1" in
    --presets) PRESETS=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --frames) FRAMES=$2; shift 2 ;;
    --clips) CLIPS=$2; shift 2 ;;
    --bit-depth) DEPTH=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
source Benchmarks/common.sh
PFF=.venv-oracles/lib/python3.11/site-packages/imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2
[ -x "$PFF" ] || { echo "convert_peer: the peer is FFmpeg 9 from the oracle environment: run bash Benchmarks/oracles.sh" >&2; exit 1; }
W=$(mktemp -d /tmp/convert-peer.XXXXXX); trap 'rm -rf "$W"' EXIT
X="crf=23:keyint=60:min-keyint=60:scenecut=0:bframes=3:b-adapt=0:open-gop=0:log-level=error"
case "$DEPTH" in
  8) PIX=yuv420p; CLIPCODEC=(-c:v libx264 -crf 10 -preset veryfast); PEERPIX=() ;;
  10) PIX=yuv420p10le; PEERPIX=(-pix_fmt yuv420p10le)
      CLIPCODEC=(-c:v libx265 -crf 10 -preset veryfast -x265-params log-level=error -color_primaries bt2020
                 -color_trc arib-std-b67 -colorspace bt2020nc) ;;
  *) echo "convert_peer: --bit-depth is 8 or 10" >&2; exit 64 ;;
esac
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; return 1; }; t1=$(date +%s.%N)
         awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}'; }
# PSNR-Y of raw 4:2:0 file $1 against $2 (both WxH $3).
psnr_y() { "$PFF" -hide_banner -f rawvideo -pix_fmt $PIX -s "$3" -i "$1" -f rawvideo -pix_fmt $PIX -s "$3" -i "$2" \
             -lavfi "[0][1]psnr" -f null - 2>&1 | sed -n 's/.* y:\([0-9.inf]*\).*/\1/p' | tail -1; }
# A clip as a side-by-side H.264 MP4 (10-bit: HEVC Main 10, HLG BT.2020) of $FRAMES frames with eyes of $2×$2·(9/16 or 16/9) — written to $3.
make_clip() {  # NAME EYE_HEIGHT OUT
  local name=$1 h=$2 out=$3 w
  w=$(( (h * 16 / 9 + 1) / 2 * 2 ))
  case "$name" in
    camera)
      local real=../shared/corpus/sbs/new.mp4
      [ -f "$real" ] || return 1
      # 10 frames forward and back (0…9…1) until $FRAMES, each eye (top, bottom of the 1080×3840 picture) scaled to
      # a landscape eye by cropping the middle of the portrait frame.
      "$PFF" -v error -y -i "$real" -filter_complex \
        "[0:v]reverse[r];[0:v][r]concat=n=2:v=1,loop=loop=-1:size=20,trim=end_frame=$FRAMES,setpts=N/30/TB,split[a][b];
         [a]crop=1080:1920:0:0,crop=1080:608:0:656,scale=$w:$h[l];[b]crop=1080:1920:0:1920,crop=1080:608:0:656,scale=$w:$h[r2];
         [l][r2]hstack,format=$PIX" -r 30 "${CLIPCODEC[@]}" "$out" ;;
    rendered)
      local sw=$(( w + w / 60 * 2 ))
      "$PFF" -v error -y -f lavfi -i "mandelbrot=s=${sw}x${h}:rate=30" -f lavfi -i "testsrc2=s=$((w / 4))x$((h / 3)):rate=30" \
        -filter_complex "[0:v]gblur=sigma=1,split[a][b];[a]crop=$w:$h:$((w / 60 * 2)):0[l0];[b]crop=$w:$h:0:0[r0];
         [1:v]split[c][d];[l0][c]overlay=x='$((w / 3))+6*n':y=$((h / 3))[l];[r0][d]overlay=x='$((w / 3 - w / 30))+6*n':y=$((h / 3))[r];
         [l][r]hstack,format=$PIX" -frames:v "$FRAMES" "${CLIPCODEC[@]}" "$out" ;;
  esac
}
x265_of() { "$1" -v info -f lavfi -i testsrc2=s=64x64:d=0.04 -c:v libx265 -f null - 2>&1 | sed -n 's/.*HEVC encoder version \([^ ]*\).*/\1/p' | head -1; }
echo "== default encoder against the peer: $("$BIN" --version | sed -n 's/^video encoders: //p' | head -1)"
echo "peer: $PFF (x265 $(x265_of "$PFF")); $DEPTH-bit; CRF 23 both eyes, keyint 60, 3 B-frames, $FRAMES frames; median of $RUNS; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for clip in $CLIPS; do
  for h in $SIZES; do
    src="$W/$clip-$h.mp4"
    make_clip "$clip" "$h" "$src" || { echo "convert_peer: clip $clip skipped (../shared absent)"; continue; }
    w=$(( (h * 16 / 9 + 1) / 2 * 2 ))
    "$PFF" -v error -y -i "$src" -vf "crop=$w:$h:0:0" -f rawvideo -pix_fmt $PIX "$W/srcL.yuv"
    "$PFF" -v error -y -i "$src" -vf "crop=$w:$h:$w:0" -f rawvideo -pix_fmt $PIX "$W/srcR.yuv"
    for preset in $PRESETS; do
      to="" ta="" tp=""
      for _ in $(seq "$RUNS"); do
        to+=" $(secs "$BIN" convert "$src" --layout sbs -o "$W/ours.mov" --preset "$preset" --crf 23 --eye-quality equal --no-audio)"
        [ "$DEPTH" = 10 ] || ta+=" $(secs "$BIN" convert "$src" --layout sbs -o "$W/asm.mov" --preset "$preset" --crf 23 --eye-quality equal --no-audio --encode-path assembled)"
        tp+=" $(secs "$PFF" -v error -y -i "$src" -filter_complex "[0:v]crop=$w:$h:0:0[l];[0:v]crop=$w:$h:$w:0[r]" \
                 -map "[l]" -c:v libx265 "${PEERPIX[@]}" -preset "$preset" -x265-params "$X" -f hevc "$W/l.hevc" \
                 -map "[r]" -c:v libx265 "${PEERPIX[@]}" -preset "$preset" -x265-params "$X" -f hevc "$W/r.hevc")"
      done
      mo=$(echo "$to" | median); mp=$(echo "$tp" | median)
      if [ "$DEPTH" = 10 ]; then ma=-; cp "$W/ours.mov" "$W/asm.mov"; else ma=$(echo "$ta" | median); fi
      q=()
      for f in ours asm; do
        "$PFF" -v error -y -i "$W/$f.mov" -map 0:v:view:0 -fps_mode passthrough -f rawvideo -pix_fmt $PIX "$W/dL.yuv" \
          -map 0:v:view:1 -fps_mode passthrough -f rawvideo -pix_fmt $PIX "$W/dR.yuv"
        q+=("$(psnr_y "$W/dL.yuv" "$W/srcL.yuv" "${w}x$h")/$(psnr_y "$W/dR.yuv" "$W/srcR.yuv" "${w}x$h")")
      done
      for e in l r; do "$PFF" -v error -y -i "$W/$e.hevc" -fps_mode passthrough -f rawvideo -pix_fmt $PIX "$W/d$e.yuv"; done
      pq="$(psnr_y "$W/dl.yuv" "$W/srcL.yuv" "${w}x$h")/$(psnr_y "$W/dr.yuv" "$W/srcR.yuv" "${w}x$h")"
      bo=$(stat -c %s "$W/ours.mov"); ba=$(stat -c %s "$W/asm.mov"); bp=$(( $(stat -c %s "$W/l.hevc") + $(stat -c %s "$W/r.hevc") ))
      ratio=$(awk -v a="$mo" -v b="$mp" 'BEGIN{printf "%.2f", a / b}')
      bytes=$(awk -v a="$bo" -v b="$bp" 'BEGIN{printf "%.2f", a / b}')
      basm=$(awk -v a="$bo" -v b="$ba" 'BEGIN{printf "%.2f", a / b}')
      echo "$clip ${w}x$h per eye, $preset: ours ${mo}s [${to# }] $bo B PSNR-Y L/R ${q[0]}; assembled ${ma}s $ba B ${q[1]};" \
           "peer ${mp}s [${tp# }] $bp B ${pq}: time ${ratio}x, bytes ${bytes}x of the peer, ${basm}x of the assembly"
      row "convert $clip ${w}x$h/eye $DEPTH-bit $preset vs FFmpeg 9 crop + 2×libx265" "${mo} s" "${mp} s" "${ratio}x" "≤ 1.0x" "bytes ${bytes}x (asm ${basm}x); PSNR L/R ${q[0]} vs ${pq}"
    done
  done
done
