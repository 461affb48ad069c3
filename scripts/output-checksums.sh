#!/usr/bin/env bash
# Runs a fixed set of commands with the built CLI and prints `sha256  name` for every file they write, so a
# refactor can be shown to leave the conversion, mux, edit, repair and split paths byte-identical.
#
# Usage: scripts/output-checksums.sh [--check [LIST]] [--keep DIR]
#   (no option)   print the list
#   --check       compare with the recorded list (default Benchmarks/output-checksums.txt); exit 1 on a difference
#   --keep DIR    write the outputs into DIR (kept) instead of a temporary directory
# BIN=path/to/spatial-media picks the binary (default: the debug build, `swift build --show-bin-path`).
#
# Every value is given explicitly (no defaults), audio is only copied and no FFmpeg is run, so the outputs
# depend only on this project, x265, libde265 and libpng/libjpeg-turbo. Inputs are made here: the bundled
# synthetic SBS clip and a side-by-side PNG written by Python's standard library.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
check=""
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --check) check="Benchmarks/output-checksums.txt"
                 if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then check="$2"; shift; fi ;;
        --keep) keep="$2"; shift ;;
        *) echo "usage: $0 [--check [LIST]] [--keep DIR]" >&2; exit 64 ;;
    esac
    shift
done
BIN="${BIN:-$(swift build --show-bin-path)/spatial-media}"
[ -x "$BIN" ] || { echo "output-checksums: no CLI at $BIN (swift build --product spatial-media)" >&2; exit 2; }
case "$BIN" in /*) ;; *) BIN="$root/$BIN" ;; esac

if [ -n "$keep" ]; then mkdir -p "$keep"; T=$(cd "$keep" && pwd); else
    T=$(mktemp -d "${TMPDIR:-/tmp}/output-checksums.XXXXXX"); trap 'rm -rf "$T"' EXIT; fi
log="$T/commands.log"
: > "$log"
run() { echo "+ spatial-media $*" >> "$log"; "$BIN" "$@" >> "$log" 2>&1 || { echo "output-checksums: failed: spatial-media $* (log: $log)" >&2; cat "$log" >&2; exit 2; }; }

# Inputs.
sample="$root/Conformance/files/sample_sbs_320x96.y4m"
python3 - "$T/in-sbs.png" <<'EOF'
import struct, sys, zlib
# A 256x128 side-by-side pair (two 128x128 eyes): textured background at disparity 2, a square at disparity 10.
W, H = 128, 128
def pixel(x, y, eye):
    for d, x0, x1, y0, y1, colour in ((10, 40, 80, 40, 90, None),):
        sx = x - eye * d / 2
        if x0 <= sx < x1 and y0 <= y < y1:
            u = int(sx - x0)
            return (220, 60 + 4 * u, 40) if (u // 4 + y // 4) % 2 else (30, 200, 90)
    sx = int(x - eye * 1)
    return ((sx * 7 + y * 3) % 256, (sx * 3 ^ y * 5) % 256, ((sx // 8 + y // 8) % 2) * 160 + 40)
rows = b''.join(b'\0' + bytes(v for eye in (1, -1) for x in range(W) for v in pixel(x, y, eye)) for y in range(H))
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2 * W, H, 8, 2, 0, 0, 0)) \
    + chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b'')
open(sys.argv[1], 'wb').write(png)
EOF

V="--baseline 64 --hfov 60 --disparity 1.5"
# Conversion: SBS video (Y4M, no audio; the single-layer eye streams kept for assemble) and SBS photo.
# The encode path and the eye-quality rule are pinned (their defaults follow the multiview x265 set-up may install).
Q="--encode-path assembled --eye-quality asymmetric"
run convert "$sample" -o "$T/convert-video.mov" --layout sbs $V $Q --hero left --crf 28 --preset fast \
    --keyint 10 --bframes 2 --threads-per-eye 1 --sps-form full --no-audio --keep-streams "$T/eye"
run convert "$sample" -o "$T/convert-video-mp4.mp4" --layout sbs $V $Q --hero right --crf 30 --preset fast \
    --keyint 15 --bframes 3 --threads-per-eye 1 --sps-form multilayer --no-audio --mp4 --faststart
# Audio copied from another movie (PCM `sowt`: copied as it is, FFmpeg not involved).
run convert "$sample" -o "$T/convert-video-audio.mov" --layout sbs $V $Q --hero left --crf 28 --preset fast \
    --keyint 10 --bframes 2 --threads-per-eye 1 --audio-from "$root/Conformance/files/multitrack.mov"
run convert "$T/in-sbs.png" -o "$T/convert-photo.heic" --layout sbs $V --quality 70 --bit-depth 8 --form apple
run convert "$T/in-sbs.png" -o "$T/convert-photo-both.heic" --layout sbs $V --quality 50 --bit-depth 10 --form both
# Mux: two single-layer HEVC streams → MV-HEVC.
run assemble "$T/eye-left.hevc" "$T/eye-right.hevc" -o "$T/assemble.mov" $V --hero left --fps 30
run assemble "$T/eye-left.hevc" "$T/eye-right.hevc" -o "$T/assemble-mp4.mp4" $V --hero right --fps 29.97 --mp4 --faststart --sps-form multilayer --right-base
# Metadata edits: copy and in place, video and photo.
run edit "$T/convert-video.mov" -o "$T/edit-video-copy.mov" --baseline 65.5 --hfov 70 --disparity -2 --hero right
cp "$T/convert-video.mov" "$T/edit-video-inplace.mov"
run edit "$T/edit-video-inplace.mov" --in-place --baseline 66 --hfov 58.25 --disparity 0.5 --hero none
run edit "$T/assemble.mov" -o "$T/edit-video-remove.mov" --remove-spatial
run edit "$T/assemble.mov" -o "$T/edit-video-faststart.mov" --faststart --baseline 61
run edit "$T/convert-photo.heic" -o "$T/edit-photo-copy.heic" --baseline 62 --hfov 55 --disparity 3
cp "$T/convert-photo.heic" "$T/edit-photo-inplace.heic"
run edit "$T/edit-photo-inplace.heic" --in-place --baseline 70 --hfov 50 --disparity -1
# Repair: a stereo track without a hero eye, moov after mdat.
run edit "$T/assemble.mov" -o "$T/repair-input.mov" --hero none
run fix "$T/repair-input.mov" -o "$T/repair.mov" --hero right
# Split: MV-HEVC → two raw streams, spatial photo → eyes.
run split-video "$T/assemble.mov" --left "$T/split-video-left.hevc" --right "$T/split-video-right.hevc"
run split "$T/convert-video.mov" --copy --left "$T/split-copy-left.hevc" --right "$T/split-copy-right.hevc"
run split "$T/convert-photo.heic" --left "$T/split-photo-left.heic" --right "$T/split-photo-right.heic"
run split "$T/convert-photo.heic" --left "$T/split-photo-left.png" --right "$T/split-photo-right.png"

list=$(cd "$T" && find . -type f ! -name 'in-*' ! -name commands.log ! -name 'eye-*' | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum)
if [ -z "$check" ]; then echo "$list"; exit 0; fi
if diff <(grep -v '^#' "$check") <(echo "$list") > "$T/diff"; then
    echo "output-checksums: $(echo "$list" | wc -l) outputs identical to $check"
else
    echo "output-checksums: outputs differ from $check (< recorded, > now):" >&2
    cat "$T/diff" >&2
    exit 1
fi
