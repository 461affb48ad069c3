#!/usr/bin/env bash
# Conversion at real sizes (issue 17): `spatial-media convert` of a full-SBS H.264 Matroska file against the
# equivalent hand-made pipeline — one FFmpeg decode splitting the frame into two eyes, feeding two x265 CLI encodes
# at once through named pipes, same preset, CRF, GOP and threads (one pool thread and one frame thread per eye).
# Prints wall time, the ratio, and peak RSS: ours in total, the two x265 CLI encoders', and our own share (ours
# minus the two encoders); and our own CPU share (work outside x265).
#
#   bash Benchmarks/convert_real.sh                      # 1080p per eye, 60 frames, preset ultrafast
#   SIZES="1920x1080:60 3840x2160:30" PRESET=fast bash Benchmarks/convert_real.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES="${SIZES:-1920x1080:60}"; PRESET="${PRESET:-ultrafast}"; CRF="${CRF:-23}"
source Benchmarks/common.sh
command -v x265 >/dev/null || { echo "x265 CLI not found (apt-get install x265)" >&2; exit 1; }
FF=""
for c in "${SPATIAL_MEDIA_FFMPEG:-}" .tools/bin/ffmpeg "$(command -v ffmpeg || true)"; do [ -n "$c" ] && [ -x "$c" ] && { FF="$c"; break; }; done
[ -n "$FF" ] || { echo "no ffmpeg (bash scripts/setup.sh)" >&2; exit 1; }
W=$(mktemp -d /tmp/convert-real.XXXXXX); trap 'rm -rf "$W"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores shared: wall-clock ratios move with other users' load)"
for spec in $SIZES; do
  size=${spec%%:*}; frames=${spec##*:}; ew=${size%x*}; eh=${size#*x}
  in="$W/sbs_$size.mkv"
  "$FF" -nostdin -hide_banner -v error -y -f lavfi -i "testsrc2=s=${size}:r=30" -frames:v "$frames" \
     -filter_complex "[0:v]split[a][b];[b]hflip[c];[a][c]hstack" -c:v libx264 -preset ultrafast -crf 18 "$in"
  KEYINT=60
  X=(--preset "$PRESET" --crf "$CRF" --keyint $KEYINT --min-keyint $KEYINT --no-scenecut --bframes 3 --b-adapt 0 --no-open-gop
     --pools 1 --frame-threads 1 --lookahead-threads 0 --fps 30 --log-level error --no-progress)
  # Hand-made pipeline: FFmpeg decodes and splits once, two x265 CLI encoders run at once.
  rm -f "$W/l.fifo" "$W/r.fifo"; mkfifo "$W/l.fifo" "$W/r.fifo"
  t0=$(date +%s.%N)
  /usr/bin/time -o "$W/tl" -f "%M %U %S" x265 "${X[@]}" --input "$W/l.fifo" --y4m -o "$W/l.hevc" &
  pl=$!
  /usr/bin/time -o "$W/tr" -f "%M %U %S" x265 "${X[@]}" --input "$W/r.fifo" --y4m -o "$W/r.hevc" &
  pr=$!
  /usr/bin/time -o "$W/tf" -f "%M %U %S" "$FF" -nostdin -hide_banner -v error -y -i "$in" \
     -filter_complex "[0:v]crop=iw/2:ih:0:0[l];[0:v]crop=iw/2:ih:iw/2:0[r]" -map "[l]" -pix_fmt yuv420p -f yuv4mpegpipe "$W/l.fifo" \
     -map "[r]" -pix_fmt yuv420p -f yuv4mpegpipe "$W/r.fifo"
  wait $pl $pr
  t1=$(date +%s.%N)
  "$BIN" convert "$in" -o "$W/out.mov" --preset "$PRESET" --crf "$CRF" --keyint $KEYINT --bframes 3 --eye-quality equal --no-audio --json > "$W/ours.json"
  t2=$(date +%s.%N)
  python3 - "$W" "$t0" "$t1" "$t2" "$ew" "$eh" "$frames" "$PRESET" <<'EOF'
import json, sys
w, t0, t1, t2, ew, eh, frames, preset = sys.argv[1:]
t0, t1, t2 = float(t0), float(t1), float(t2)
def tm(n):
    m, u, s = open(f"{w}/{n}").read().split()[-3:]
    return int(m) * 1024, float(u) + float(s)
(rl, cl), (rr, cr), (rf, cf) = tm("tl"), tm("tr"), tm("tf")
j = json.load(open(f"{w}/ours.json"))
peer, ours = t1 - t0, t2 - t1
mib = lambda b: b / 2**20
own_rss = j["peak_rss_bytes"] - rl - rr
own_cpu = 100 * j["own_cpu_seconds"] / j["process_cpu_seconds"]
label = f"{ew}×{eh} per eye, {j['frames']} frames, preset {preset}"
print(f"{label}: ours {ours:.2f} s (peak RSS {mib(j['peak_rss_bytes']):.0f} MiB, FFmpeg child apart); hand-made pipeline {peer:.2f} s "
      f"(x265 left {mib(rl):.0f} MiB, right {mib(rr):.0f} MiB, ffmpeg {mib(rf):.0f} MiB); ratio {peer / ours:.2f}x")
print(f"  our own RSS share (ours - both x265 CLI): {mib(own_rss):.0f} MiB (goal < 150 MiB); own CPU outside x265: "
      f"{j['own_cpu_seconds']:.2f} of {j['process_cpu_seconds']:.2f} CPU s = {own_cpu:.1f} % (goal < 5 %)")
print(f"ROW|convert {label}, H.264 SBS MKV → spatial video|{ours:.2f} s|ffmpeg decode + two x265 CLI at once: {peer:.2f} s|{peer / ours:.2f}x|≥ 1x|{mib(j['peak_rss_bytes']):.0f} / {mib(rl) + mib(rr):.0f} + {mib(rf):.0f} MiB")
print(f"ROW|our own RSS share at {ew}×{eh} (ours − two x265 CLI)|{mib(own_rss):.0f} MiB|—|—|< 150 MiB: {'met' if mib(own_rss) < 150 else 'missed'}|—")
print(f"ROW|our own CPU share at {ew}×{eh} (work outside x265)|{own_cpu:.1f} %|—|—|< 5 %: {'met' if own_cpu < 5 else 'missed'}|—")
EOF
  rm -f "$in" "$W/out.mov" "$W/l.hevc" "$W/r.hevc"
done
