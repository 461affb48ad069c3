#!/usr/bin/env bash
# Installs what spatial-media needs, builds it, and runs the main job on a bundled input.
# Idempotent: safe to run again. Usage: bash scripts/setup.sh [--deps-only]
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES="libde265-dev libx265-dev x265 libheif-dev libheif-examples libjpeg62-turbo-dev libturbojpeg0-dev libpng-dev pkg-config"

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

install_deps
[ "${1:-}" = "--deps-only" ] && exit 0

echo "setup: building spatial-media (release)…" >&2
swift build -c release --static-swift-stdlib --product spatial-media 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3 >&2 || true
BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/spatial-media"
[ -x "$BIN" ] || { echo "setup: build failed" >&2; exit 1; }
echo "setup: running the main job: convert the bundled SBS clip into a spatial video, then inspect it" >&2
SAMPLE=Conformance/files/sample_sbs_320x96.y4m
[ -f "$SAMPLE" ] || python3 scripts/make_sample_sbs.py "$SAMPLE"
OUT="${SPATIAL_MEDIA_OUT:-.build/spatial_sample.mov}"; mkdir -p "$(dirname "$OUT")"
"$BIN" convert "$SAMPLE" -o "$OUT" --preset fast
"$BIN" info "$OUT"
if "$BIN" --help 2>/dev/null | grep -qE '^ +validate'; then "$BIN" validate "$OUT"; fi
echo "setup: done. The binary is $BIN" >&2
