# Sourced by the benchmark scripts: one release build of the CLI for all of them (the same flags as
# scripts/setup.sh), unless BIN already names a binary.
if [ -z "${BIN:-}" ]; then
  swift build -c release --static-swift-stdlib --product spatial-media 2>&1 | { grep -E "error:" >&2 || true; }
  BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/spatial-media"
fi
[ -x "$BIN" ] || { echo "benchmark: no spatial-media binary at $BIN" >&2; exit 1; }
export BIN
# A result row for the table Benchmarks/run.sh prints:
#   row BENCHMARK OURS PEER RATIO GOAL RSS
row() { echo "ROW|$1|$2|$3|$4|$5|$6"; }
# For a peer comparison: the options --frames N, --preset P, --sizes "…", --runs N (into FRAMES, PRESET, SIZES, RUNS, whose defaults
# the script sets first), FFmpeg as spatial-media finds it ($FF) and a scratch directory ($W, removed at exit).
#   bench_tools NAME "$@"
bench_tools() {
  local name=$1; shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --frames) FRAMES=$2; shift 2 ;;
      --preset) PRESET=$2; shift 2 ;;
      --sizes) SIZES=$2; shift 2 ;;
      --runs) RUNS=$2; shift 2 ;;
      *) echo "unknown option $1" >&2; exit 64 ;;
    esac
  done
  FF=$("$BIN" --version | sed -n 's/^FFmpeg: FFmpeg [^ ]* (\([^,]*\), from.*/\1/p')
  [ -x "$FF" ] || { echo "$name: no FFmpeg found by spatial-media (run bash scripts/setup.sh)" >&2; exit 1; }
  W=$(mktemp -d "/tmp/$name.XXXXXX"); trap 'rm -rf "$W"' EXIT
}
# Wall seconds and peak RSS (MB) of a command, written to FILE ("SECONDS MB").
#   measure FILE COMMAND...
measure() {
  local out="$1"; shift
  /usr/bin/time -o "$W/t" -f "%e %M" "$@" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; return 1; }
  awk '{printf "%s %.0f\n", $1, $2/1024}' "$W/t" > "$out"
}
