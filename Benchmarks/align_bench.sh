#!/bin/sh
# Stereo measure + align of a 2560² pair, side by side with OpenCV's uncalibrated rectification
# (ORB + findFundamentalMat + stereoRectifyUncalibrated + warpPerspective of both eyes), and the never-worse check on
# real pairs (OpenCV's own residual before/after `spatial-media align` / `convert --align`).
# Needs the release CLI and the oracle venv; the Vision Pro photo from ../shared/corpus.
set -e
cd "$(dirname "$0")/.."
BIN=.build/release/spatial-media
PY=.venv-oracles/bin/python
CV=Benchmarks/stereo_cv.py
VP=../shared/corpus/spatial-photo/vision-pro.HEIC
MPO=../shared/corpus/mpo/sugarshack.mpo
[ -x "$BIN" ] || swift build -c release --product spatial-media
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BIN" split "$VP" --left "$T/vpL.png" --right "$T/vpR.png" >/dev/null
# The real Vision Pro pair with a known fault added to the right eye (roll 0.5°, 6 px, 1 % scale).
"$PY" "$CV" make-fault "$T/vpL.png" "$T/vpR.png" "$T/fault"
for i in 1 2; do
  echo "spatial-media: $("$BIN" bench-align "$T/fault/left.png" "$T/fault/right.png" --hfov 80 --runs 3)"
  echo "opencv:        $("$PY" "$CV" rectify "$T/fault/left.png" "$T/fault/right.png" --runs 3)"
done
echo "never worse (OpenCV's residual |dy| before -> after):"
"$BIN" align "$VP" -o "$T/vp-al.heic" >/dev/null
"$BIN" split "$T/vp-al.heic" --left "$T/aL.png" --right "$T/aR.png" >/dev/null
echo "  vision-pro.HEIC  before $("$PY" "$CV" residual "$T/vpL.png" "$T/vpR.png")"
echo "                   after  $("$PY" "$CV" residual "$T/aL.png" "$T/aR.png")"
"$BIN" convert "$MPO" -o "$T/m.heic" >/dev/null 2>&1
"$BIN" convert "$MPO" -o "$T/ma.heic" --align >/dev/null 2>&1
"$BIN" split "$T/m.heic" --left "$T/mL.png" --right "$T/mR.png" >/dev/null
"$BIN" split "$T/ma.heic" --left "$T/maL.png" --right "$T/maR.png" >/dev/null
echo "  sugarshack.mpo   before $("$PY" "$CV" residual "$T/mL.png" "$T/mR.png")"
echo "                   after  $("$PY" "$CV" residual "$T/maL.png" "$T/maR.png")"
