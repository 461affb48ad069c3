#!/usr/bin/env bash
# The one-time re-layout of the Swift sources by the toolchain's swift-format (configuration: .swift-format).
#
#   bash scripts/format.sh            # dry run: formats a copy of the tree in a temporary directory and reports
#                                     # how many files and lines would change, the longest functions afterwards
#                                     # and what `lint.sh --layout` would still report; the tree is not touched
#   bash scripts/format.sh --apply    # formats the tree in place (clean work tree required), turns on the rules
#                                     # held back until now (OrderedImports, GroupNumericLiterals, OneCasePerLine)
#                                     # and switches CI's lint step to `scripts/lint.sh --layout`
#
# Run --apply once, when no other branch is in flight (it touches nearly every file), build, test, commit the
# result as one commit. Afterwards `swift format format -i FILE` keeps a file in shape and CI refuses layout drift.
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:-dry-run}"
case "$mode" in --apply|dry-run) ;; *) echo "usage: bash scripts/format.sh [--apply]" >&2; exit 64 ;; esac
held_back="OrderedImports GroupNumericLiterals OneCasePerLine"

enable_held_back() { # CONFIG: turn on the rules that only a full re-layout can satisfy
  python3 - "$1" $held_back <<'PY'
import json, sys
path, rules = sys.argv[1], sys.argv[2:]
c = json.load(open(path))
for r in rules: c["rules"][r] = True
open(path, "w").write(json.dumps(c, indent=2, sort_keys=True) + "\n")
PY
}
format_tree() { # DIR: swift-format's layout, then comments over 120 columns re-wrapped (scripts/line-length.py)
  ( cd "$1" && swift format format --in-place --recursive --parallel Package.swift Sources Tests Fuzz/Package.swift Fuzz/Fuzz*/ \
      && { python3 scripts/line-length.py --reflow >/dev/null || true; } )
}

if [ "$mode" = dry-run ]; then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/spatial-media-format.XXXXXX")
  [ -n "${FORMAT_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
  git ls-files -z --cached --others --exclude-standard | grep -zvE '^(\.build|\.tools|\.venv)' \
    | xargs -0 -I{} cp --parents -P {} "$tmp" 2>/dev/null
  ( cd "$tmp" && git init -q && git add -A && git -c user.name=x -c user.email=x commit -qm before )
  enable_held_back "$tmp/.swift-format"
  format_tree "$tmp" || exit 1
  echo "== would change (files, lines):"; ( cd "$tmp" && git diff --shortstat; echo -n "Sources/ only:"; git diff --shortstat -- Sources )
  echo "== longest functions afterwards:"; ( cd "$tmp" && python3 scripts/function-length.py --max 120 --top 5 )
  echo "== lint --layout afterwards:"; ( cd "$tmp" && bash scripts/lint.sh --layout | tail -12 )
  echo "(dry run: nothing in this tree was changed; FORMAT_KEEP=1 keeps the formatted copy: ${FORMAT_KEEP:+$tmp})"
  exit 0
fi

[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "format: commit or stash your changes first" >&2; exit 1; }
enable_held_back .swift-format
format_tree . || exit 1
sed -i 's#^bash scripts/lint.sh || #bash scripts/lint.sh --layout || #' .ci/run
grep -q 'scripts/lint.sh --layout' .ci/run || { echo "format: could not switch .ci/run to lint --layout" >&2; exit 1; }
git diff --shortstat
echo "== function length"; python3 scripts/function-length.py --max 120 --top 5
echo "== lint --layout"; bash scripts/lint.sh --layout
echo "format: now build and test (swift build --build-tests && swift test --skip-build), then commit everything in one commit"
