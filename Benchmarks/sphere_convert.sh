#!/usr/bin/env bash
# Sphere conversion benchmark (issue 33): `spatial-media convert VR.mp4 -o OUT.mov` (a frame-packed stereo 180°/360°
# movie → MV-HEVC APMP) against the hand-made pipeline it replaces, in the same invocation:
#   1. one FFmpeg run crops each half and encodes it with libx265 (two encoders at once, the same fixed GOP, preset and
#      CRFs as ours: the hero eye at CRF 23, the other at CRF 28 — our default asymmetric eye quality — keyint 2 s,
#      3 B-frames, no scene-cut);
#   2. the two streams are assembled into MV-HEVC (FFmpeg has no MV-HEVC muxer for x265 streams and this x265 no
#      multiview encoder, so the assembly is ours, `spatial-media assemble`, without re-encoding);
#   3. the projection is tagged (`spatial-media edit --projection hequ|equi`).
# Three pairings, because the two sides may not run the same x265: (a) `convert` as set up (the multiview x265 when
# scripts/setup.sh built one, inter-view prediction) against FFmpeg as spatial-media finds it (its own libx265);
# (b) `convert --encode-path assembled` (two single-layer encodes by the system libx265) against the same FFmpeg;
# (c) the assembled path against a system FFmpeg that links that same system libx265 (Debian's /usr/bin/ffmpeg), so
# the two routes differ only in their shape (decode + cut + encode in one process vs FFmpeg's crop filters).
# Ours runs with --no-audio, as the hand-made pipeline writes none (by default `convert` adds a silent AAC track to a
# silent source, which visionOS Safari needs). Both outputs are read back by our validator (ours inside `convert`,
# the peer's inside `assemble` and `edit`).
# Sources: a generated VR180 side-by-side clip (rendered scene, the right eye shifted; H.264, Google st3d/sv3d written
# by our own `edit --to-google`) at 1080×1080 and 1920×1920 per eye, and the corpus VR360 top-bottom movie when
# ../shared is present. Prints ROW lines for Benchmarks/run.sh.
# Usage: bash Benchmarks/sphere_convert.sh [--frames N] [--preset P] [--sizes "1080 1920"] [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES=60; PRESET=ultrafast; SIZES="1080 1920"; RUNS=3
source Benchmarks/common.sh
bench_tools sphere-bench "$@"
# PSNR (dB, all planes) of one view of OUT against a crop of SRC, on raw 4:2:0 samples.
psnr() {  # SRC CROP OUT VIEWSPEC
  "$FF" -v error -y -i "$1" -vf "crop=$2" -f rawvideo -pix_fmt yuv420p "$W/a.yuv"
  "$FF" -v error -y -i "$3" -filter_complex "[0:v:0:$4]null[o]" -map "[o]" -f rawvideo -pix_fmt yuv420p "$W/b.yuv"
  python3 - "$W/a.yuv" "$W/b.yuv" <<'EOF'
import math, sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read()
n = min(len(a), len(b)); step = max(1, n // 4_000_000)
s = sum((a[i] - b[i]) ** 2 for i in range(0, n, step)); m = s / len(range(0, n, step))
print(f"{10 * math.log10(255 * 255 / m):.1f}" if m else "inf")
EOF
}
# The median of a list of numbers.
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
compare() {  # SOURCE LABEL PROJECTION SBS(1)/TB(0) PEER-FFMPEG PAIRING-LABEL [OUR OPTIONS...]
  local src=$1 label=$2 proj=$3 sbs=$4 pff=$5 pairing=$6; shift 6
  local ot orss pt prss ratio l r fps keyint x i otimes="" ptimes="" orsss="" prsss=""
  fps=$({ "$FF" -hide_banner -i "$src" 2>&1 || true; } | sed -n 's/.*, \([0-9.]*\) fps,.*/\1/p' | head -1)
  keyint=$(awk -v f="$fps" 'BEGIN{printf "%d", f * 2 + 0.5}')
  x="keyint=$keyint:min-keyint=$keyint:scenecut=0:bframes=3:b-adapt=0:open-gop=0:log-level=error"
  if [ "$sbs" = 1 ]; then l="iw/2:ih:0:0"; r="iw/2:ih:iw/2:0"; else l="iw:ih/2:0:0"; r="iw:ih/2:0:ih/2"; fi
  # Alternating runs, medians: the machine is shared, so one run of each can be far off.
  for i in $(seq "$RUNS"); do
    measure "$W/ours" "$BIN" convert "$src" -o "$W/ours.mov" --preset "$PRESET" --no-audio "$@"
    measure "$W/peer1" "$pff" -v error -y -i "$src" -filter_complex "[0:v]crop=$l[l];[0:v]crop=$r[r]" \
      -map "[l]" -c:v libx265 -preset "$PRESET" -crf 23 -x265-params "$x" -f hevc "$W/l.hevc" \
      -map "[r]" -c:v libx265 -preset "$PRESET" -crf 28 -x265-params "$x" -f hevc "$W/r.hevc"
    measure "$W/peer2" "$BIN" assemble "$W/l.hevc" "$W/r.hevc" -o "$W/peer0.mov" --fps "$fps"
    measure "$W/peer3" "$BIN" edit "$W/peer0.mov" -o "$W/peer.mov" --projection "$proj"
    otimes+=" $(awk '{print $1}' "$W/ours")"; orsss+=" $(awk '{print $2}' "$W/ours")"
    ptimes+=" $(cat "$W"/peer[123] | awk '{s += $1} END {printf "%.2f", s}')"
    prsss+=" $(cat "$W"/peer[123] | awk '$2 > m {m = $2} END {print m}')"
    rm -f "$W/peer0.mov"
  done
  ot=$(echo "$otimes" | median); pt=$(echo "$ptimes" | median); orss=$(echo "$orsss" | median); prss=$(echo "$prsss" | median)
  ratio=$(awk -v a="$ot" -v b="$pt" 'BEGIN{printf "%.2f", a/b}')
  local ql qr pl pr
  ql=$(psnr "$src" "$l" "$W/ours.mov" vpos:left); qr=$(psnr "$src" "$r" "$W/ours.mov" vpos:right)
  pl=$(psnr "$src" "$l" "$W/peer.mov" view:0); pr=$(psnr "$src" "$r" "$W/peer.mov" view:1)
  echo "sphere $label, $pairing, x265 $PRESET CRF 23/28, median of $RUNS: ours ${ot}s [${otimes# }] (${orss} MB, $(stat -c %s "$W/ours.mov") bytes, PSNR L/R $ql/$qr dB), ffmpeg crop+2×libx265 + assemble + edit ${pt}s [${ptimes# }] (${prss} MB, $(stat -c %s "$W/peer.mov") bytes, PSNR L/R $pl/$pr dB): ${ratio}x"
  row "sphere $label → MV-HEVC APMP ($pairing)" "${ot} s" "${pt} s" "${ratio}x" "≤ 1.1x" "${orss} / ${prss} MB"
}
# Our encoders and the peers' (the x265 inside each FFmpeg is named by FFmpeg itself).
x265_of() { "$1" -v info -f lavfi -i testsrc2=s=64x64:d=0.04 -c:v libx265 -f null - 2>&1 | sed -n 's/.*HEVC encoder version \([^ ]*\).*/\1/p' | head -1; }
OURS_DEFAULT=$("$BIN" --version | sed -n 's/^video encoders: multiview path (default when present): \([^(,]*\).*/\1/p')
OURS_ASSEMBLED=$("$BIN" --version | sed -n 's/.*assembled path: \(x265 [^ ]*\) per eye.*/\1/p')
PEER_X265=$(x265_of "$FF")
SYSFF=""
for c in /usr/bin/ffmpeg /usr/local/bin/ffmpeg; do
  [ -x "$c" ] && [ "$c" != "$FF" ] && [ "$(x265_of "$c")" = "${OURS_ASSEMBLED#x265 }" ] && { SYSFF=$c; break; }
done
echo "ours: default path ${OURS_DEFAULT:-?}; assembled path ${OURS_ASSEMBLED:-?}. Peer FFmpeg $FF: x265 ${PEER_X265:-?}."
[ -n "$SYSFF" ] && echo "system FFmpeg $SYSFF links the same libx265 as our assembled path (${OURS_ASSEMBLED})." \
  || echo "no system FFmpeg with our assembled path's libx265 (${OURS_ASSEMBLED}): pairing (c) skipped."
# All three pairings of one source.
pairings() {  # SOURCE LABEL PROJECTION SBS(1)/TB(0)
  compare "$@" "$FF" "default path (${OURS_DEFAULT:-?}) vs FFmpeg's x265 ${PEER_X265:-?}"
  compare "$@" "$FF" "assembled (${OURS_ASSEMBLED:-?}) vs FFmpeg's x265 ${PEER_X265:-?}" --encode-path assembled
  [ -z "$SYSFF" ] || compare "$@" "$SYSFF" "assembled vs system FFmpeg, both ${OURS_ASSEMBLED:-?}" --encode-path assembled
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 shared cores: wall-clock ratios move with other load)"
for eye in $SIZES; do
  shift_px=$((eye / 100))
  "$FF" -v error -y -f lavfi -i "testsrc2=size=$((eye + shift_px))x$eye:rate=30" -frames:v "$FRAMES" \
    -filter_complex "[0:v]gblur=sigma=1,split[a][b];[a]crop=$eye:$eye:0:0[l];[b]crop=$eye:$eye:$shift_px:0[r];[l][r]hstack" \
    -c:v libx264 -crf 16 -preset veryfast -pix_fmt yuv420p "$W/sbs.mp4"
  "$BIN" edit "$W/sbs.mp4" -o "$W/apmp.mp4" --packing side --projection hequ >/dev/null 2>&1
  "$BIN" edit "$W/apmp.mp4" -o "$W/vr180.mp4" --to-google >/dev/null 2>&1
  pairings "$W/vr180.mp4" "VR180 SBS ${eye}×${eye}/eye ($FRAMES frames, Google st3d/sv3d)" hequ 1
done
if [ -f ../shared/corpus/spherical/testRoom1_1080Stereo.mp4 ]; then
  pairings ../shared/corpus/spherical/testRoom1_1080Stereo.mp4 "corpus VR360 TB 1080×540/eye (360 frames, Google v1 XML)" equi 0
fi
