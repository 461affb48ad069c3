#!/usr/bin/env bash
# Photo benchmark: decode of the Vision Pro spatial photo (both eyes to RGB) versus pillow-heif
# (libheif 1.23), encode speed of a 12 MP stereo pair, peak RSS. Needs a release build and, for the
# comparison, .venv-oracles (Benchmarks/oracles.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/common.sh
VP=../shared/corpus/spatial-photo/vision-pro.HEIC
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
best() { # best wall time of N runs of a command, seconds
  local n=$1; shift; local b=999999
  for _ in $(seq "$n"); do
    local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    b=$(python3 -c "print(min($b, $e - $s))")
  done; echo "$b"
}
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
if [ -f "$VP" ]; then
  # Like for like: both eyes decoded to 8-bit RGB in-process, best of 5 (bench-decode hook vs pillow-heif).
  ours=$("$BIN" bench-decode "$VP" --runs 5 | awk '{print $2}')
  echo "vision-pro decode of both eyes to RGB, in-process, ours: ${ours}s"
  if [ -x .venv-oracles/bin/python ]; then
    theirs=$(.venv-oracles/bin/python Benchmarks/photo_oracle.py time "$VP" 5)
    echo "vision-pro decode of both eyes to RGB, in-process, pillow-heif (libheif 1.23, its own libde265 build): ${theirs}s"
    python3 -c "print(f'ratio ours/pillow-heif: {$ours/$theirs:.2f}x (goal <= 1.0x)')"
    python3 -c "r=$ours/$theirs; print(f'ROW|Vision Pro spatial photo: both 2560² eyes decoded to RGB, in-process|{$ours:.3f} s|pillow-heif (libheif 1.23): {$theirs:.3f} s|{r:.2f}x the time|<= 1.0x: ' + ('met' if r <= 1 else 'missed') + '|—')"
  fi
  # The same comparison with the decoder library held equal: pillow-heif bundles libde265 1.1.x, Debian has
  # 1.0.11; SPATIAL_MEDIA_LIBDE265 makes ours load pillow-heif's copy.
  bundled=$(ls .venv-oracles/lib/python*/site-packages/pillow_heif.libs/libde265*.so* 2>/dev/null | head -1)
  if [ -n "$bundled" ] && [ -n "${theirs:-}" ]; then
    same=$(SPATIAL_MEDIA_LIBDE265="$PWD/$bundled" "$BIN" bench-decode "$VP" --runs 5 | awk '{print $2}')
    echo "vision-pro decode, ours with pillow-heif's own libde265 ($(basename "$bundled")): ${same}s"
    python3 -c "r=$same/$theirs; print(f'ROW|same, both with pillow-heif\'s libde265 build (decoder held equal)|{$same:.3f} s|pillow-heif: {$theirs:.3f} s|{r:.2f}x the time|<= 1.0x: ' + ('met' if r <= 1 else 'missed') + '|—')"
  fi
  # End to end as a user runs it: process start, decode, RGB, two JPEG encodes and writes.
  split=$(best 5 "$BIN" split "$VP" --left "$TMP/l.jpg" --right "$TMP/r.jpg" --quality 50)
  srss=$(rss "$BIN" split "$VP" --left "$TMP/l.jpg" --right "$TMP/r.jpg" --quality 50)
  echo "vision-pro split to two JPEGs (whole command), ours: ${split}s (peak RSS $srss KiB)"
  row "\`split\` of the Vision Pro photo to two JPEGs (whole command)" "$(printf %.3f "$split") s" "—" "—" "—" "$((srss / 1024)) MB"
fi
# 12 MP pair: a 2×4000×3000 side-by-side PNG made by the helper.
python3 Benchmarks/photo_make_sbs.py "$TMP/sbs12.png" 8000 3000
enc=$(best 1 "$BIN" convert "$TMP/sbs12.png" -o "$TMP/out.heic")
erss=$(rss "$BIN" convert "$TMP/sbs12.png" -o "$TMP/out2.heic")
echo "12 MP pair (2×4000×3000) convert (PNG decode + x265 encode of 2×48 tiles + write): ${enc}s (peak RSS $erss KiB)"
row "12 MP stereo pair (2×4000×3000 PNG) → spatial photo (PNG decode, x265 default quality, write)" "$(printf %.1f "$enc") s" "—" "—" "—" "$((erss / 1024)) MB"
