#!/usr/bin/env bash
# Builds the libFuzzer targets with ASan (SwiftPM 6.3 instruments only the entry module for
# --sanitize=fuzzer, so -Xswiftc -sanitize=fuzzer adds coverage to the library modules too) and runs them, seeded from ../shared/corpus (when present)
# and the project's Conformance/files.
#   bash scripts/fuzz.sh smoke            # every target for $FUZZ_SECONDS (default 60) seconds
#   bash scripts/fuzz.sh long [SECONDS]   # every target for SECONDS (default 600) seconds
#   bash scripts/fuzz.sh TARGET SECONDS   # one target
# Findings are written to Fuzz/artifacts/<target>/; copy them to Fuzz/Regressions/<target>/ so that
# the regression test replays them.
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:-smoke}"
case "$mode" in
  smoke) targets="FuzzBoxes FuzzHEVC FuzzHEIF FuzzCABI FuzzImageHeaders"; seconds="${FUZZ_SECONDS:-60}" ;;
  long) targets="FuzzBoxes FuzzHEVC FuzzHEIF FuzzCABI FuzzImageHeaders"; seconds="${2:-600}" ;;
  *) targets="$mode"; seconds="${2:-60}" ;;
esac
scratch=.build-fuzz
work=Fuzz/corpus-work
mkdir -p "$work"
summary=""
for t in $targets; do
  echo "fuzz: building $t" >&2
  if ! swift build -c release --scratch-path "$scratch" --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer --product "$t" 2>&1 | grep -E "error" >&2; then :; fi
  bin="$scratch/release/$t"
  [ -x "$bin" ] || { echo "fuzz: build of $t failed" >&2; exit 1; }
  seeds="$work/$t"
  mkdir -p "$seeds" "Fuzz/artifacts/$t"
  case "$t" in
    FuzzBoxes) src="../shared/corpus ../shared/fixtures Conformance/files" ; pattern='.*\.(mp4|mov|heic|HEIC|heif|avif|m4a|m4v|3gp|mj2|bin)$|/malformed/' ;;
    FuzzCABI) src="../shared/corpus/spatial-photo ../shared/corpus/spatial-video ../shared/fixtures Conformance/files" ; pattern=".*" ;;
    FuzzImageHeaders) src="../shared/corpus/mpo ../shared/corpus/sbs Conformance/files" ; pattern='.*\.(mpo|MPO|jpg|JPG|jpeg|y4m)$' ;;
    FuzzHEIF) src="../shared/corpus ../shared/fixtures Conformance/files" ; pattern='.*\.(heic|HEIC|heif|avif|hif)$' ;;
    FuzzHEVC) src="../shared/corpus ../shared/fixtures" ; pattern='.*\.(hevc|265|h265|bit)$' ;;
    *) src="Conformance/files" ; pattern='.*' ;;
  esac
  for d in $src; do
    [ -d "$d" ] || continue
    find "$d" -type f -size -${FUZZ_MAX_SEED_KB:-100}k | grep -E "$pattern" | while read -r f; do cp -f "$f" "$seeds/$(echo "$f" | md5sum | cut -c1-16)"; done
  done
  echo "fuzz: running $t for ${seconds}s on $(ls "$seeds" | wc -l) seeds" >&2
  log="Fuzz/artifacts/$t/last-run.log"
  # The smoke run (CI) is deterministic: a fixed seed and a fixed number of runs per target from the seed
  # corpus, bounded by $seconds; longer runs explore freely.
  extra=""
  if [ "$mode" = smoke ]; then
    case "$t" in
      FuzzBoxes) runs=20000 ;; FuzzHEVC) runs=1500 ;; FuzzHEIF) runs=30000 ;; FuzzCABI) runs=8000 ;; *) runs=100000 ;;
    esac
    extra="-seed=${FUZZ_SEED:-1} -runs=$runs"
  fi
  SWIFT_BACKTRACE=enable=no "$bin" $extra -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=131072 \
    -artifact_prefix="Fuzz/artifacts/$t/" -print_final_stats=1 "$seeds" >"$log" 2>&1
  rc=$?
  execs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}')
  summary="$summary\n$t: exit $rc, ${execs:-?} executions (at most ${seconds}s)"
  if [ "$rc" -ne 0 ]; then
    tail -40 "$log" >&2
    echo "fuzz: $t found a problem (exit $rc); inputs in Fuzz/artifacts/$t/" >&2
    printf "$summary\n"
    exit 1
  fi
done
printf "$summary\n"
