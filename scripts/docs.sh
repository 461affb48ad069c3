#!/usr/bin/env bash
# Builds the DocC documentation of every public library module into .build/docs/<Module>.doccarchive, with the
# toolchain's docc (no swift-docc-plugin needed): symbol graphs from `swift package dump-symbol-graph` (which
# builds the package first), then `docc convert` of each module's catalog Sources/<Module>/<Module>.docc, lowest
# module first; each archive is a `--dependency` of the later ones, so ``SpatialMedia/StereoParameters`` in
# SpatialConvert's comments resolves to SpatialMedia's page (an unqualified ``StereoParameters`` does not: a link
# to another module names the module).
# Fails when a public module has no catalog, when DocC cannot resolve a symbol or article link (in a catalog or
# in a documentation comment), or on any other DocC warning.
#
#   bash scripts/docs.sh                 # every module
#   bash scripts/docs.sh HEVC ISOBMFF    # some
#   DOCS_PREVIEW=1 bash scripts/docs.sh  # also a static site per module: .build/docs/<Module>-site/
#
# SpatialMediaC has no catalog: its public face is C, documented in include/spatialmedia.h.
set -uo pipefail
cd "$(dirname "$0")/.."
modules=(SystemSupport BinaryIO ISOBMFF HEVC SpatialMedia ImageFormats Codecs StereoVision MediaDecode SpatialConvert
         SpatialValidation SpatialOperations SpatialMediaKit)
[ $# -gt 0 ] && modules=("$@")
command -v docc >/dev/null || { echo "docs: docc not found (it ships with the Swift toolchain)" >&2; exit 2; }
out=.build/docs
mkdir -p "$out"
echo "docs: symbol graphs (builds the package)" >&2
log="$out/dump-symbol-graph.log"
swift package dump-symbol-graph --minimum-access-level public >"$log" 2>&1 || { tail -20 "$log" >&2; echo "docs: dump-symbol-graph failed" >&2; exit 1; }
graphs=$(sed -n 's/^Files written to //p' "$log" | tail -1)
[ -d "$graphs" ] || { echo "docs: no symbol graph directory in $log" >&2; exit 1; }

failed=0
deps=()   # archives built so far: links into lower modules resolve against them
for m in "${modules[@]}"; do
  catalog="Sources/$m/$m.docc"
  if [ ! -d "$catalog" ]; then echo "docs: $m has no DocC catalog ($catalog)"; failed=1; continue; fi
  [ -f "$graphs/$m.symbols.json" ] || { echo "docs: no symbol graph for $m"; failed=1; continue; }
  # The module's own graph plus its extensions of other modules' types (Module@Other.symbols.json).
  input="$out/symbol-graphs/$m"; rm -rf "$input"; mkdir -p "$input"
  cp "$graphs/$m.symbols.json" "$input/"
  for g in "$graphs/$m"@*.symbols.json; do [ -f "$g" ] && cp "$g" "$input/"; done
  archive="$out/$m.doccarchive"; rm -rf "$archive"
  extra=()
  [ -n "${DOCS_PREVIEW:-}" ] && extra=(--transform-for-static-hosting --hosting-base-path "$m")
  dlog="$out/$m.log"
  docc convert "$catalog" --additional-symbol-graph-dir "$input" --output-path "$archive" \
    --fallback-display-name "$m" --fallback-bundle-identifier "spatial-media.$m" \
    --enable-experimental-external-link-support "${deps[@]}" "${extra[@]}" >"$dlog" 2>&1
  rc=$?
  deps+=(--dependency "$archive")
  warnings=$(grep -cE '^(warning|error):' "$dlog" || true)
  if [ $rc -ne 0 ] || [ "$warnings" -gt 0 ]; then
    cat "$dlog"; echo "docs: $m: $warnings DocC warning(s)/error(s), exit $rc"; failed=1
  else
    pages=$(find "$archive/data/documentation" -name '*.json' 2>/dev/null | wc -l)
    echo "docs: $m: $pages pages, no warnings -> $archive"
  fi
done
exit $failed
