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
