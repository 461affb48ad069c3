#!/usr/bin/env bash
# Round trip of auxiliary images (gain maps, alpha, depth) and thumbnails through every photo-writing job, over the
# corpus HEIFs that carry them: combine (the file as both eyes), edit, align, split → combine. Prints a Markdown table:
# auxiliary images / thumbnails of the source's primary image, then of each eye after each job (info --json).
#
#   bash Benchmarks/aux_roundtrip.sh [BINARY]     (default .build/debug/spatial-media; needs ../shared/corpus)
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-.build/debug/spatial-media}
C=../shared/corpus
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FILES="heif-real-world/iphone_13_pro_max.HEIC heif-real-world/aux_YCbCr.heic heif-real-world/RGBA_10__29x100.heif heif-conformance/C006.heic heif-conformance/C052.heic heif-examples/libheif/with-alpha-512x512.heic heif-examples/libheif/colors-with-alpha-thumbnail.heic heif-examples/nokia/alpha_1440x960.heic spatial-photo/stereo_1200x800.heic"
# counts FILE: "aux/thumbnails" per eye (ster group) or of the primary image.
counts() {
  "$B" info --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin); h = d.get("heif_images", {}); sp = d.get("spatial_photo", {})
primary = [i["id"] for i in d.get("items", []) if i.get("primary")]
eyes = [sp["left"]["item_id"], sp["right"]["item_id"]] if sp.get("is_spatial_photo") else primary[:1]
def n(kind, eye): return sum(1 for a in h.get(kind, []) if eye in a.get("master_item_ids", a.get("target_item_ids", [])))
print(" + ".join("%d/%d" % (n("auxiliary", e), n("thumbnails", e)) for e in eyes))' 2>/dev/null || echo "unreadable"
}
echo "| source | source (aux/thumbnails) | combine (L + R) | edit | align | split → combine |"
echo "|---|---|---|---|---|---|"
for f in $FILES; do
  src=$C/$f; name=$(basename "$f")
  [ -f "$src" ] || continue
  before=$(counts "$src")
  if "$B" info --json "$src" | grep -q '"is_spatial_photo": *true'; then
    cp "$src" "$T/p.heic"; comb="(already spatial) $(counts "$T/p.heic")"
  elif "$B" combine "$src" "$src" -o "$T/p.heic" >/dev/null 2>"$T/err"; then comb=$(counts "$T/p.heic"); else comb="refused: $(tail -1 "$T/err" | cut -c1-90)"; fi
  if [ -f "$T/p.heic" ]; then
    "$B" edit "$T/p.heic" -o "$T/e.heic" --disparity 1 >/dev/null 2>"$T/err" && edit=$(counts "$T/e.heic") || edit="refused: $(tail -1 "$T/err" | cut -c1-90)"
    "$B" align "$T/p.heic" -o "$T/a.heic" --quality 30 >/dev/null 2>"$T/err" && align=$(counts "$T/a.heic") || align="refused: $(tail -1 "$T/err" | cut -c1-90)"
    if "$B" split "$T/p.heic" --left "$T/l.heic" --right "$T/r.heic" >/dev/null 2>"$T/err" && "$B" combine "$T/l.heic" "$T/r.heic" -o "$T/s.heic" >/dev/null 2>>"$T/err"; then
      split=$(counts "$T/s.heic"); else split="refused: $(tail -1 "$T/err" | cut -c1-90)"; fi
  else edit="-"; align="-"; split="-"; fi
  echo "| $name | $before | $comb | $edit | $align | $split |"
  rm -f "$T"/*.heic
done
# A pair that align really warps: the iPhone photo and a copy turned 1° and moved down 1.5 %, its gain map moved the
# same way (Tests/Oracles/aux_shifted_eye.py, pillow-heif), converted without --align, then each job.
PY=.venv-oracles/bin/python
src=$C/heif-real-world/iphone_13_pro_max.HEIC
if [ -x "$PY" ] && [ -f "$src" ] && $PY Tests/Oracles/aux_shifted_eye.py "$src" "$T/right.png" "$T/right-gain.png" 1.0 1.5 >/dev/null; then
  "$B" convert --left "$src" --right "$T/right.png" --right-gain-map "$T/right-gain.png" -o "$T/p.heic" --quality 30 >/dev/null 2>&1
  comb=$(counts "$T/p.heic")
  "$B" edit "$T/p.heic" -o "$T/e.heic" --disparity 1 >/dev/null 2>&1 && edit=$(counts "$T/e.heic") || edit="refused"
  "$B" align "$T/p.heic" -o "$T/a.heic" --quality 30 > "$T/align.txt" 2>&1 && align="$(counts "$T/a.heic") (warped: $(grep -c 'warped and cropped' "$T/align.txt") re-encoded)" || align="refused"
  "$B" split "$T/p.heic" --left "$T/l.heic" --right "$T/r.heic" >/dev/null 2>&1 && "$B" combine "$T/l.heic" "$T/r.heic" -o "$T/s.heic" >/dev/null 2>&1 && split=$(counts "$T/s.heic") || split="refused"
  echo "| iPhone + turned copy (convert --right-gain-map) | 1/1 + 1/0 | $comb (convert) | $edit | $align | $split |"
fi
