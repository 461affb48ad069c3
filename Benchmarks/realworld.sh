#!/usr/bin/env bash
# Real-world acceptance (issue 17): makes the inputs people have with FFmpeg, converts each with the built CLI,
# and checks every output with FFmpeg >= 7.1 and libmediainfo. Any failed check ends the run with exit 1.
#
#   bash Benchmarks/realworld.sh               # short clips (CI: about a minute on an idle machine)
#   FRAMES=48 bash Benchmarks/realworld.sh     # longer clips
#   KEEP=1 bash Benchmarks/realworld.sh        # keep the work directory
#
# Cases: full-SBS 1080p H.264 + AC-3 5.1 in Matroska (AAC-style early audio start), half-SBS H.264 + AAC in MP4,
# top-bottom HEVC 10-bit + ALAC in QuickTime, two separate VP9 + Opus WebM files (Opus → AAC), ProRes + PCM in
# QuickTime, MPEG-2 + MP2 in M2TS (MP2 → AAC), AV1 in Matroska without audio (silent AAC track added).
# Checks per output: both views decode (-map 0:v:0:vpos:left|right) with the source's frame count; each eye's
# PSNR against its source eye; eyes not swapped; audio present with the source's codec or AAC, its channel count
# kept, and its duration equal to the video's (± one frame); FFmpeg prints the Stereo 3D side data; libmediainfo
# (pymediainfo of .venv-oracles) reads two views and the audio. Split checks: see split_checks below.
set -uo pipefail
cd "$(dirname "$0")/.."
FRAMES="${FRAMES:-24}"

# FFmpeg >= 7.1 for making inputs and checking: SPATIAL_MEDIA_FFMPEG, the tools directory, the oracle venv.
FF=""
for c in "${SPATIAL_MEDIA_FFMPEG:-}" .tools/bin/ffmpeg .venv-oracles/lib/python3.11/site-packages/imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2; do
  [ -n "$c" ] && [ -x "$c" ] || continue
  v=$("$c" -hide_banner -version 2>/dev/null | head -1 | sed -E 's/^ffmpeg version n?([0-9]+)\.([0-9]+).*/\1 \2/')
  set -- $v
  if [ "${1:-0}" -gt 7 ] 2>/dev/null || { [ "${1:-0}" -eq 7 ] 2>/dev/null && [ "${2:-0}" -ge 1 ]; }; then FF="$c"; break; fi
done
[ -n "$FF" ] || { echo "realworld: FAIL: no FFmpeg >= 7.1 (run bash scripts/setup.sh)" >&2; exit 1; }
PY=python3
MI=""; [ -x .venv-oracles/bin/python ] && .venv-oracles/bin/python -c "import pymediainfo" 2>/dev/null && MI=.venv-oracles/bin/python

if [ -z "${BIN:-}" ]; then
  swift build -c release --product spatial-media 2>&1 | { grep -E "error:" >&2 || true; }
  BIN="$(swift build -c release --show-bin-path)/spatial-media"
fi
[ -x "$BIN" ] || { echo "realworld: FAIL: no spatial-media binary at $BIN" >&2; exit 1; }
W=$(mktemp -d /tmp/realworld.XXXXXX)
[ -n "${KEEP:-}" ] && echo "work directory: $W" || trap 'rm -rf "$W"' EXIT
echo "== realworld: $FRAMES frames per clip; FFmpeg $("$FF" -hide_banner -version | head -1 | cut -d' ' -f3) ($FF); $BIN"
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
ff() { "$FF" -nostdin -hide_banner -v error -y "$@"; }

# Source eyes: 24 fps Y4M, left = test pattern, right = the same mirrored (so swapped eyes cannot pass), lightly
# blurred so the half-resolution cases measure the layout, not aliasing of one-pixel lines.
make_eyes() {  # NAME W H
  local d=$(python3 -c "print($FRAMES / 24)")
  ff -f lavfi -i "testsrc2=s=$2x$3:r=24:d=$d" -vf "gblur=sigma=1.2" -pix_fmt yuv420p "$W/$1-L.y4m"
  ff -i "$W/$1-L.y4m" -vf hflip,hue=h=90 -pix_fmt yuv420p "$W/$1-R.y4m"
}
tone() { echo "sine=f=440:r=48000:d=$(python3 -c "print($FRAMES / 24)")"; }  # as long as the video

echo "== making inputs"
make_eyes hd 1920 1080
make_eyes sd 640 360
# 1. Full SBS 1080p H.264 + AC-3 5.1 in MKV.
ff -i "$W/hd-L.y4m" -i "$W/hd-R.y4m" -f lavfi -i "$(tone)" -filter_complex "[0:v][1:v]hstack[v];[2:a]pan=5.1|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0[a]" \
   -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -crf 16 -c:a ac3 -b:a 384k -metadata:s:a:0 language=eng "$W/sbs_ac3.mkv"
# 2. Half SBS H.264 + AAC in MP4 (each eye squeezed to half width).
ff -i "$W/sd-L.y4m" -i "$W/sd-R.y4m" -f lavfi -i "$(tone)" -filter_complex "[0:v]scale=320:360,setsar=1[l];[1:v]scale=320:360,setsar=1[r];[l][r]hstack[v]" \
   -map "[v]" -map 2:a -c:v libx264 -preset veryfast -crf 16 -c:a aac -b:a 128k "$W/halfsbs_aac.mp4"
# 3. Top-bottom HEVC 10-bit + ALAC in MOV.
ff -i "$W/sd-L.y4m" -i "$W/sd-R.y4m" -f lavfi -i "$(tone)" -filter_complex "[0:v][1:v]vstack[v]" -map "[v]" -map 2:a \
   -c:v libx265 -preset ultrafast -crf 14 -pix_fmt yuv420p10le -tag:v hvc1 -x265-params log-level=error -c:a alac "$W/ou_hevc10_in.mov"
# 4. Two separate files: VP9 + Opus in WebM (Opus is transcoded to AAC).
ff -i "$W/sd-L.y4m" -f lavfi -i "$(tone)" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -crf 20 -b:v 0 -c:a libopus -b:a 96k "$W/left.webm"
ff -i "$W/sd-R.y4m" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -crf 20 -b:v 0 "$W/right.webm"
# 5. ProRes 422 + 16-bit PCM in MOV (full SBS).
ff -i "$W/sd-L.y4m" -i "$W/sd-R.y4m" -f lavfi -i "$(tone)" -filter_complex "[0:v][1:v]hstack[v]" -map "[v]" -map 2:a \
   -c:v prores_ks -profile:v 2 -c:a pcm_s16le "$W/prores_in.mov"
# 6. MPEG-2 + MP2 in M2TS (MP2 is transcoded to AAC).
ff -i "$W/sd-L.y4m" -i "$W/sd-R.y4m" -f lavfi -i "$(tone)" -filter_complex "[0:v][1:v]hstack[v]" -map "[v]" -map 2:a \
   -c:v mpeg2video -q:v 2 -c:a mp2 -b:a 192k -f mpegts "$W/mpeg2.m2ts"
# 7. AV1 in MKV, no audio: a silent AAC track is added.
ff -i "$W/sd-L.y4m" -i "$W/sd-R.y4m" -filter_complex "[0:v][1:v]hstack[v]" -map "[v]" -c:v libsvtav1 -preset 12 -crf 8 -svtav1-params verbosity=0 "$W/av1.mkv" 2>/dev/null \
  || ff -i "$W/sd-L.y4m" -i "$W/sd-R.y4m" -filter_complex "[0:v][1:v]hstack[v]" -map "[v]" -c:v libaom-av1 -cpu-used 8 -crf 10 "$W/av1.mkv"

# NAME EYES PSNR-FLOOR AUDIO-CODECS CHANNELS -- convert arguments
check() {
  local name=$1 eyes=$2 floor=$3 codecs=$4 channels=$5; shift 6
  local out="$W/$name.mov"
  echo "== $name: convert $*"
  if ! "$BIN" convert "$@" -o "$out" --preset ultrafast --crf 18 --keyint 24 --json > "$W/$name.json" 2> "$W/$name.err"; then
    fail "$name: convert exited $?: $(cat "$W/$name.err")"; return
  fi
  # Both views, decoded by FFmpeg.
  for v in left right; do
    ff -i "$out" -map "0:v:0:vpos:$v" -pix_fmt yuv420p -f yuv4mpegpipe "$W/$name-$v.y4m" || { fail "$name: FFmpeg cannot decode the $v view"; return; }
  done
  $PY - "$FF" "$W" "$name" "$eyes" "$floor" "$codecs" "$channels" "$FRAMES" "$MI" <<'EOF' || FAILS=$((FAILS + 1))
import json, re, subprocess, sys
ff, w, name, eyes, floor, codecs, channels, frames, mi = sys.argv[1:]
floor, frames, channels = float(floor), int(frames), int(channels)
out = f"{w}/{name}.mov"
bad = []
def run(*a):
    return subprocess.run([ff, "-nostdin", "-hide_banner", *a], capture_output=True, text=True)
def psnr(a, b):
    r = run("-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-")
    m = re.search(r"average:([0-9.]+|inf)", r.stderr)
    return float("inf") if m and m.group(1) == "inf" else float(m.group(1)) if m else 0.0
def count(y4m):
    return open(y4m, "rb").read().count(b"FRAME")
for v in ("left", "right"):
    n = count(f"{w}/{name}-{v}.y4m")
    if n != frames: bad.append(f"{v} view has {n} frames, the source {frames}")
pl, pr = psnr(f"{w}/{name}-left.y4m", f"{w}/{eyes}-L.y4m"), psnr(f"{w}/{name}-right.y4m", f"{w}/{eyes}-R.y4m")
cross = psnr(f"{w}/{name}-left.y4m", f"{w}/{eyes}-R.y4m")
print(f"  PSNR left {pl:.2f} dB, right {pr:.2f} dB (floor {floor}); left vs the right source {cross:.2f} dB")
if min(pl, pr) < floor: bad.append(f"PSNR {min(pl, pr):.2f} dB below {floor}")
if cross >= pl - 3: bad.append("eyes swapped or alike: the left view is as close to the right source")
info = run("-i", out).stderr
if "Stereo 3D" not in info and "stereo3d" not in info.lower(): bad.append("FFmpeg prints no Stereo 3D side data")
fps = json.load(open(f"{w}/{name}.json"))["fps"].split("/")
video_s = frames * int(fps[1]) / int(fps[0])
auds = [l for l in info.splitlines() if "Audio:" in l]
if not auds: bad.append("no audio track")
for l in auds:
    codec = l.split("Audio:")[1].split()[0].strip(",")
    if codec not in codecs.split(","): bad.append(f"audio codec {codec}, expected one of {codecs}")
    if channels == 6 and "5.1" not in l: bad.append(f"audio is not 5.1: {l.strip()}")
    print(f"  audio: {l.strip()}")
if auds:
    r = subprocess.run([ff, "-nostdin", "-v", "error", "-i", out, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "s16le", "-"], capture_output=True)
    audio_s = len(r.stdout) / 2 / 48000
    print(f"  durations: video {video_s:.3f} s, audio {audio_s:.3f} s")
    if abs(audio_s - video_s) > 1.0 / (int(fps[0]) / int(fps[1])) + 1e-6: bad.append(f"audio lasts {audio_s:.3f} s, the video {video_s:.3f} s (more than one frame apart)")
if mi:
    code = ("import sys; from pymediainfo import MediaInfo as M; t = M.parse(sys.argv[1]).tracks; "
            "v = [x for x in t if x.track_type == 'Video']; a = [x for x in t if x.track_type == 'Audio']; "
            "print(v[0].format if v else '-', v[0].count_of_views if v else '-', len(a), a[0].format if a else '-', (v[0].format_profile or '-').replace(' ', '_') if v else '-')")
    r = subprocess.run([mi, "-c", code, out], capture_output=True, text=True)
    f = r.stdout.split()
    print(f"  libmediainfo: video {f[0] if f else '?'} {f[4] if len(f) > 4 else '?'}, {f[1] if len(f) > 1 else '?'} views, {f[2] if len(f) > 2 else '?'} audio ({f[3] if len(f) > 3 else '?'})")
    # 8-bit sources: Multiview Main; 10-bit sources (issue 40): a Main 10 base layer, 2 views (an independent layer 1).
    if len(f) < 5 or f[0] != "HEVC" or f[1] != "2" or f[2] == "0" or not f[4].startswith(("Multiview_Main", "Main_10")): bad.append(f"libmediainfo reads: {r.stdout.strip()} {r.stderr.strip()[-200:]}")
for b in bad: print(f"FAIL: {name}: {b}")
sys.exit(1 if bad else 0)
EOF
}

check sbs_ac3    hd 34 ac3      6 -- "$W/sbs_ac3.mkv" --layout sbs
check halfsbs    sd 26 aac      2 -- "$W/halfsbs_aac.mp4" --layout half-sbs
check ou_hevc10  sd 34 alac,aac 2 -- "$W/ou_hevc10_in.mov" --layout tb
check two_files  sd 34 aac      2 -- --left "$W/left.webm" --right "$W/right.webm"
check prores     sd 34 pcm_s16le,pcm_s16be,aac 2 -- "$W/prores_in.mov" --layout sbs
check mpeg2_m2ts sd 30 aac      2 -- "$W/mpeg2.m2ts" --layout sbs
check av1_silent sd 32 aac      2 -- "$W/av1.mkv" --layout sbs

# Split checks (issue 17 "split works on every spatial video"): the lead adds them here. Each check should call
# fail "NAME: reason" on a failed check; the outputs above ($W/*.mov) and their decoded views ($W/*-left.y4m,
# $W/*-right.y4m) can serve as inputs with known eyes.
split_one() {  # NAME SOURCE AUDIO_CODEC(or -) : split SOURCE to SBS, OU and two files; every eye ≥ 40 dB against
  local name=$1 src=$2 acodec=$3   # FFmpeg's own decode of that view, not swapped, audio carried when expected
  echo "== split $name"
  "$BIN" split "$src" --sbs "$W/split-$name-sbs.mp4" > /dev/null 2> "$W/split.err" || { fail "split $name --sbs: $(cat "$W/split.err")"; return; }
  "$BIN" split "$src" --ou "$W/split-$name-ou.mov" > /dev/null 2> "$W/split.err" || { fail "split $name --ou: $(cat "$W/split.err")"; return; }
  "$BIN" split "$src" --left "$W/split-$name-l.mp4" --right "$W/split-$name-r.mp4" > /dev/null 2> "$W/split.err" || { fail "split $name eyes: $(cat "$W/split.err")"; return; }
  $PY - "$FF" "$W" "$name" "$acodec" "$src" <<'PYEOF' || FAILS=$((FAILS + 1))
import re, subprocess, sys
ff, w, name, acodec, src = sys.argv[1:]
def psnr(test, crop, view):
    # Against FFmpeg's own decode of that view of the source, in one filter graph (timestamps aligned by FFmpeg).
    g = f"[0:v]{crop + ',' if crop else ''}setsar=1[a];[1:v:0:vpos:{view}]setsar=1[b];[b][a]psnr"
    r = subprocess.run([ff, "-nostdin", "-hide_banner", "-i", test, "-i", src, "-filter_complex", g, "-f", "null", "-"], capture_output=True, text=True)
    m = re.search(r"average:([0-9.]+|inf)", r.stderr)
    return 99.0 if m and m.group(1) == "inf" else float(m.group(1)) if m else -1.0
L, R = "left", "right"
cases = [("sbs left", f"{w}/split-{name}-sbs.mp4", "crop=iw/2:ih:0:0", L), ("sbs right", f"{w}/split-{name}-sbs.mp4", "crop=iw/2:ih:iw/2:0", R),
         ("ou left", f"{w}/split-{name}-ou.mov", "crop=iw:ih/2:0:0", L), ("ou right", f"{w}/split-{name}-ou.mov", "crop=iw:ih/2:0:ih/2", R),
         ("left file", f"{w}/split-{name}-l.mp4", "", L), ("right file", f"{w}/split-{name}-r.mp4", "", R)]
bad = []
for label, test, crop, ref in cases:
    p = psnr(test, crop, ref)
    if p < 40: bad.append(f"{label} {p:.1f} dB < 40")
swapped = psnr(f"{w}/split-{name}-sbs.mp4", "crop=iw/2:ih:0:0", R)
good = psnr(f"{w}/split-{name}-sbs.mp4", "crop=iw/2:ih:0:0", L)
if swapped >= good - 3: bad.append(f"eyes look swapped ({good:.1f} vs {swapped:.1f} dB)")
if acodec != "-":
    info = subprocess.run([ff, "-hide_banner", "-i", f"{w}/split-{name}-sbs.mp4"], capture_output=True, text=True).stderr
    if f"Audio: {acodec}" not in info: bad.append(f"audio {acodec} not carried into the SBS file")
print(f"split {name}: " + ("ok (6 eyes ≥ 40 dB, not swapped" + (f", {acodec} audio carried)" if acodec != "-" else ")") if not bad else "FAIL " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PYEOF
}

split_checks() {
  # Our own output of a real input (independent layers, AC-3 5.1 carried over from the MKV).
  [ -f "$W/sbs_ac3.mov" ] && split_one ours_ac3 "$W/sbs_ac3.mov" ac3
  # Apple's MV-HEVC (inter-layer predicted) and x265 multiview's.
  [ -f ../shared/corpus/spatial-video/stereo_spatial.mp4 ] && split_one apple ../shared/corpus/spatial-video/stereo_spatial.mp4 -
  [ -f ../shared/fixtures/x265mv_320x240_30f_spatial.mov ] && split_one x265mv ../shared/fixtures/x265mv_320x240_30f_spatial.mov -
  return 0
}
split_checks

if [ -z "$MI" ]; then echo "realworld: libmediainfo checks SKIPPED (no .venv-oracles with pymediainfo: bash Benchmarks/oracles.sh)"; fi
if [ "$FAILS" -gt 0 ]; then echo "realworld: $FAILS check(s) FAILED"; exit 1; fi
echo "realworld: all checks passed"
