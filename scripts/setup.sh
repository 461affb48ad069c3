#!/usr/bin/env bash
# Installs what spatial-media needs, builds it, and runs the main job on a bundled input.
# Idempotent: safe to run again. Usage: bash scripts/setup.sh [--deps-only]
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES="libde265-dev libx265-dev x265 libheif-dev libheif-examples libjpeg62-turbo-dev libturbojpeg0-dev libpng-dev pkg-config ffmpeg python3-venv"
# FFmpeg >= 7.1 decodes both views of MV-HEVC. Where the distribution's is older (Debian 12: 5.1), the static build
# inside this PyPI wheel is put into the project's tools directory (.tools/bin/ffmpeg), where spatial-media finds it.
FFMPEG_WHEEL="imageio-ffmpeg==0.8.1"

install_deps() {
  case "$(uname -s)" in
    Linux)
      if command -v apt-get >/dev/null 2>&1; then
        missing=""
        for p in $DEB_PACKAGES; do
          dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
        done
        if [ -n "$missing" ]; then
          echo "setup: installing Debian packages:$missing" >&2
          SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
          $SUDO apt-get update -qq
          DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
        else
          echo "setup: Debian packages already installed" >&2
        fi
      else
        echo "setup: not a Debian/Ubuntu system; install libde265, x265 3.5, libheif, libjpeg-turbo, libpng and pkg-config yourself" >&2
      fi ;;
    Darwin)
      echo "setup: on macOS run: brew install libde265 x265 libheif jpeg-turbo libpng pkg-config" >&2 ;;
  esac
  command -v swift >/dev/null 2>&1 || { echo "setup: Swift 6 is required (https://swift.org/install)" >&2; exit 1; }
}

# Prints "MAJOR MINOR" of an ffmpeg program, or nothing.
ffmpeg_version() {
  "$1" -hide_banner -version 2>/dev/null | sed -n '1s/^ffmpeg version n\{0,1\}\([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p'
}
is_at_least_7_1() { [ -n "$1" ] && { [ "$1" -gt 7 ] || { [ "$1" -eq 7 ] && [ "$2" -ge 1 ]; }; }; }

install_ffmpeg() {
  local tools=.tools/bin v
  if [ -x "$tools/ffmpeg" ]; then
    v=$(ffmpeg_version "$tools/ffmpeg")
    if is_at_least_7_1 $v; then echo "setup: FFmpeg $(echo $v | tr ' ' .) already in $tools" >&2; link_user_tools; return 0; fi
  fi
  if command -v ffmpeg >/dev/null 2>&1; then
    v=$(ffmpeg_version "$(command -v ffmpeg)")
    if is_at_least_7_1 $v; then echo "setup: the system FFmpeg ($(echo $v | tr ' ' .)) decodes MV-HEVC views; nothing to add" >&2; return 0; fi
  fi
  echo "setup: installing FFmpeg >= 7.1 into $tools (from the $FFMPEG_WHEEL wheel)" >&2
  local tmp; tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  python3 -m venv "$tmp/venv" >/dev/null
  "$tmp/venv/bin/pip" download -q --no-deps --only-binary=:all: -d "$tmp/wheel" "$FFMPEG_WHEEL" >&2
  mkdir -p "$tools"
  python3 - "$tmp/wheel" "$tools/ffmpeg.part" <<'PY'
import sys, zipfile, glob, shutil
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if "/binaries/ffmpeg-" in n)
    with z.open(name) as src, open(sys.argv[2], "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  chmod 755 "$tools/ffmpeg.part" && mv "$tools/ffmpeg.part" "$tools/ffmpeg"
  v=$(ffmpeg_version "$tools/ffmpeg")
  is_at_least_7_1 $v || { echo "setup: the FFmpeg from $FFMPEG_WHEEL does not run here" >&2; return 1; }
  echo "setup: FFmpeg $(echo $v | tr ' ' .) installed in $tools" >&2
  link_user_tools
}

# The per-user tools directory, so an installed libspatialmedia or the Python package finds the same FFmpeg.
link_user_tools() {
  local dir="${XDG_DATA_HOME:-$HOME/.local/share}/spatial-media/bin"
  mkdir -p "$dir" 2>/dev/null && ln -sf "$(pwd)/.tools/bin/ffmpeg" "$dir/ffmpeg" 2>/dev/null || true
}

install_deps
install_ffmpeg
[ "${1:-}" = "--deps-only" ] && exit 0

echo "setup: building spatial-media (release)…" >&2
swift build -c release --static-swift-stdlib --product spatial-media 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3 >&2 || true
BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/spatial-media"
[ -x "$BIN" ] || { echo "setup: build failed" >&2; exit 1; }
echo "setup: running the main job: convert the bundled SBS clip into a spatial video, then inspect it" >&2
SAMPLE=Conformance/files/sample_sbs_320x96.y4m
[ -f "$SAMPLE" ] || python3 scripts/make_sample_sbs.py "$SAMPLE"
OUT="${SPATIAL_MEDIA_OUT:-.build/spatial_sample.mov}"; mkdir -p "$(dirname "$OUT")"
# The clip's nearest content has about 1 % of the width of disparity: a 1 % disparity adjustment puts the window
# just in front of most of the scene, as a stereographer would set it.
"$BIN" convert "$SAMPLE" -o "$OUT" --preset fast --disparity 1
"$BIN" info "$OUT"
if "$BIN" --help 2>/dev/null | grep -qE '^ +validate'; then "$BIN" validate "$OUT" || echo "setup: validate reported findings (exit $?); see above" >&2; fi
echo "setup: done. The binary is $BIN" >&2
