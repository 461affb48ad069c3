#!/usr/bin/env bash
# Installs what spatial-media needs, builds it, and runs the main job on a bundled input.
# Idempotent: safe to run again. Usage: bash scripts/setup.sh [--deps-only] [--no-multiview]
# --deps-only: dependencies and tools only (no Swift build, no main job); --no-multiview: no multiview x265 build.
set -euo pipefail
cd "$(dirname "$0")/.."
DEPS_ONLY=0; NO_MULTIVIEW=0
for a in "$@"; do
  case "$a" in
    --deps-only) DEPS_ONLY=1 ;;
    --no-multiview) NO_MULTIVIEW=1 ;;
    *) echo "setup: unknown option $a (use --deps-only, --no-multiview)" >&2; exit 64 ;;
  esac
done

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
  local dir="${XDG_DATA_HOME:-$HOME/.local/share}/spatial-media"
  mkdir -p "$dir/bin" 2>/dev/null || return 0
  [ -x .tools/bin/ffmpeg ] && ln -sf "$(pwd)/.tools/bin/ffmpeg" "$dir/bin/ffmpeg" 2>/dev/null
  [ -d "$X265_MV_DIR" ] && ln -sfn "$(pwd)/$X265_MV_DIR" "$dir/x265-mv" 2>/dev/null
  true
}

# A multiview libx265 (x265 >= 4.0 built with ENABLE_MULTIVIEW) lets `convert` code the second eye with inter-view
# prediction. Debian 12's x265 3.5 has none, so x265 4.1's upstream source (Debian trixie's orig tarball, fetched
# through apt with a temporary sources list; the system's sources are not changed) is built into .tools/x265-mv
# (8-bit, shared library), with our binding (scripts/x265mv) compiled against its own x265.h. The patches in
# scripts/x265mv/patches are applied to that source first (each says what it fixes; written to be sent upstream).
X265_MV_VERSION=4.1
X265_MV_DEB=4.1-2
X265_MV_SHA256=85abb8a850000bf693947459c42a666a3ecd6de10a2ac6b3c6647554b14d3270
X265_MV_DIR=.tools/x265-mv

# Prints the directory of the system's libx265 when it accepts num-views 2 (a multiview build); fails otherwise.
system_multiview_x265_dir() {
  python3 - <<'PY' 2>/dev/null
import ctypes, ctypes.util, os, sys
name = ctypes.util.find_library("x265")
if not name: sys.exit(1)
lib = ctypes.CDLL(name)
lib.x265_param_alloc.restype = ctypes.c_void_p
p = lib.x265_param_alloc()
lib.x265_param_default(ctypes.c_void_p(p))
ok = lib.x265_param_parse(ctypes.c_void_p(p), b"num-views", b"2") == 0
lib.x265_param_free(ctypes.c_void_p(p))
if not ok: sys.exit(1)
path = next(l.split()[-1] for l in open("/proc/self/maps") if "libx265" in l)
print(os.path.dirname(path))
PY
}

# The archive host this machine's apt uses (deb822 URIs or a one-line "deb URL suite" entry).
debian_archive() {
  local u
  u=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1 || true)
  [ -n "$u" ] || u=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}' | grep -v security | head -1 || true)
  echo "${u:-http://deb.debian.org/debian}"
}

# Compiles our binding against the x265.h in $1 and links it to the libx265 in $2 (both directories); $3 is
# "patched" for the libx265 built here from source with scripts/x265mv/patches (frame-parallel encoding is then
# deterministic: smx_frame_parallel says so).
build_x265_shim() {
  mkdir -p "$X265_MV_DIR/lib"
  local fp=0; [ "${3:-}" = patched ] && fp=1
  cc -O2 -std=c11 -Wall -fPIC -shared -DENABLE_MULTIVIEW=1 -DSMX_FRAME_PARALLEL=$fp -I"$1" -Iscripts/x265mv \
    scripts/x265mv/spatialmedia_x265mv.c \
    -L"$2" -lx265 -Wl,-rpath,"$2" -Wl,-Bsymbolic -o "$X265_MV_DIR/lib/libspatialmedia_x265mv.so.part" &&
    mv "$X265_MV_DIR/lib/libspatialmedia_x265mv.so.part" "$X265_MV_DIR/lib/libspatialmedia_x265mv.so"
}

install_x265_multiview() {
  local stamp="$X265_MV_DIR/stamp" shim want sysdir
  shim=$(cat scripts/x265mv/spatialmedia_x265mv.c scripts/x265mv/spatialmedia_x265mv.h | sha256sum | cut -c1-16)
  if sysdir=$(system_multiview_x265_dir) && [ -f /usr/include/x265.h ]; then
    want="system $sysdir shim $shim"
    [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && { echo "setup: binding for the system's multiview libx265 ready" >&2; return 0; }
    echo "setup: the system's libx265 ($sysdir) is multiview; compiling our binding against it" >&2
    build_x265_shim /usr/include "$sysdir" && echo "$want" > "$stamp"; return
  fi
  local patches; patches=$(cat scripts/x265mv/patches/*.patch 2>/dev/null | sha256sum | cut -c1-16)
  want="x265 $X265_MV_VERSION $X265_MV_SHA256 patches $patches shim $shim"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$X265_MV_DIR/lib/libspatialmedia_x265mv.so" ]; then
    echo "setup: multiview x265 $X265_MV_VERSION already in $X265_MV_DIR" >&2; link_user_tools; return 0
  fi
  local prefix; prefix="$(pwd)/$X265_MV_DIR"
  if [ -f "$stamp" ] && grep -q "^x265 $X265_MV_VERSION $X265_MV_SHA256 patches $patches " "$stamp" && [ -f "$X265_MV_DIR/include/x265.h" ]; then
    echo "setup: multiview x265 $X265_MV_VERSION in $X265_MV_DIR; rebuilding our binding only" >&2
    build_x265_shim "$X265_MV_DIR/include" "$prefix/lib" patched && echo "$want" > "$stamp" && link_user_tools; return
  fi
  echo "setup: building a multiview libx265 $X265_MV_VERSION into $X265_MV_DIR (once: a few minutes on idle cores, about 7 MB)" >&2
  local SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  local p
  for p in cmake nasm g++ make patch; do
    command -v "$p" >/dev/null 2>&1 || { DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$p" >/dev/null || return 1; }
  done
  local tmp; tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/lists/partial"
  echo "deb-src $(debian_archive) trixie main" > "$tmp/sources.list"
  local apt=(apt-get -qq -o Dir::Etc::sourcelist="$tmp/sources.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$tmp/lists"
             -o APT::Sandbox::User=root)
  $SUDO "${apt[@]}" update >&2 || return 1
  # The Debian packaging files may not be served; the upstream tarball is all we need (its hash is checked below).
  (cd "$tmp" && $SUDO "${apt[@]}" source --download-only "x265=$X265_MV_DEB" >/dev/null 2>&1) || true
  local tarball="$tmp/x265_$X265_MV_VERSION.orig.tar.xz"
  [ -f "$tarball" ] || { echo "setup: x265_$X265_MV_VERSION.orig.tar.xz could not be fetched" >&2; return 1; }
  echo "$X265_MV_SHA256  $tarball" | sha256sum -c --quiet - || { echo "setup: x265 tarball hash mismatch" >&2; return 1; }
  tar xf "$tarball" -C "$tmp"
  local patch
  for patch in scripts/x265mv/patches/*.patch; do
    [ -f "$patch" ] || continue
    patch -s -p1 -d "$tmp/x265_$X265_MV_VERSION" < "$patch" || { echo "setup: $patch does not apply" >&2; return 1; }
  done
  # x265's CMakeLists sets old policies: its deprecation warnings are noise here (shown only when cmake fails).
  cmake -S "$tmp/x265_$X265_MV_VERSION/source" -B "$tmp/build" -DENABLE_MULTIVIEW=ON -DENABLE_SHARED=ON \
    -DENABLE_CLI=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -Wno-dev -Wno-deprecated \
    >/dev/null 2>"$tmp/cmake.err" || { cat "$tmp/cmake.err" >&2; return 1; }
  make -C "$tmp/build" -j"$(nproc)" >/dev/null || return 1
  rm -rf "$X265_MV_DIR" && make -C "$tmp/build" install >/dev/null || return 1
  rm -f "$X265_MV_DIR/lib/libx265.a"
  build_x265_shim "$X265_MV_DIR/include" "$prefix/lib" patched || return 1
  echo "$want" > "$stamp"
  echo "setup: multiview x265 $X265_MV_VERSION installed in $X265_MV_DIR ($(du -sh "$X265_MV_DIR" | cut -f1))" >&2
  link_user_tools
}

install_deps
install_ffmpeg
if [ "$NO_MULTIVIEW" = 1 ]; then echo "setup: --no-multiview: no multiview x265 (convert assembles two single-layer encodes)" >&2
else install_x265_multiview || echo "setup: the multiview x265 could not be built; convert will assemble two single-layer encodes" >&2; fi
[ "$DEPS_ONLY" = 1 ] && exit 0

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
