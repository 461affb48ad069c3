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
# FFmpeg as spatial-media finds it, in FF (the peers of a benchmark run the same build); exits when there is none.
bench_ffmpeg() {  # SCRIPT-NAME
  FF=$("$BIN" --version | sed -n 's/^FFmpeg: FFmpeg [^ ]* (\([^,]*\), from.*/\1/p')
  [ -x "$FF" ] || { echo "$1: no FFmpeg found by spatial-media (run bash scripts/setup.sh)" >&2; exit 1; }
}
# Wall seconds and peak RSS (MB) of a command, written to the file OUT ("SECONDS MB"); the command's output is
# discarded and its errors shown when it fails.
measure() {  # OUT COMMAND...
  local out="$1"; shift
  /usr/bin/time -o "$out.t" -f "%e %M" "$@" >/dev/null 2>"$out.err" || { cat "$out.err" >&2; return 1; }
  awk '{printf "%s %.0f\n", $1, $2/1024}' "$out.t" > "$out"
}
# The split benchmarks' options: --frames N, --preset P, --sizes "WxH …" (defaults from FRAMES, PRESET, SIZES).
split_bench_options() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --frames) FRAMES=$2; shift 2 ;;
      --preset) PRESET=$2; shift 2 ;;
      --sizes) SIZES=$2; shift 2 ;;
      *) echo "unknown option $1" >&2; exit 64 ;;
    esac
  done
}
