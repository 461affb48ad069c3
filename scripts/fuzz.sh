#!/usr/bin/env bash
# libFuzzer targets, one per parsing surface, seeded from ../shared/corpus (when present) and the
# project's Conformance/files. The targets are a package of their own (Fuzz/Package.swift, depending on this
# one by path), built into .build-fuzz (ASan) or .build-fuzz-fast. SwiftPM 6.3 instruments only the entry
# module for --sanitize=fuzzer, so -Xswiftc -sanitize=fuzzer adds coverage to the library modules too.
#
#   bash scripts/fuzz.sh smoke                   # CI: every target, fixed seed and run count, ASan
#   bash scripts/fuzz.sh long [SECONDS]          # every target for SECONDS (default 600), ASan
#   bash scripts/fuzz.sh TARGET SECONDS          # one target, ASan
#   bash scripts/fuzz.sh campaign TARGET SECONDS [RUNS]
#        # long campaign: a build without ASan (Swift's own bounds and overflow traps stay on) runs
#        # until RUNS executions (default 10 000 000) or SECONDS; the corpus it grew is then replayed
#        # once through the ASan build, so memory errors on any input it kept are still caught.
#   bash scripts/fuzz.sh replay TARGET           # replay Fuzz/corpus-work/TARGET through the ASan build
#
# Findings go to Fuzz/artifacts/<target>/; copy them to Fuzz/Regressions/<target>/ (and list them in
# its index.txt) so that the regression tests replay them.
set -uo pipefail
cd "$(dirname "$0")/.."
ALL="FuzzBoxes FuzzHEVC FuzzHEIF FuzzCABI FuzzImageHeaders FuzzPNG FuzzJPEG"
mode="${1:-smoke}"
case "$mode" in
  smoke) targets="$ALL"; seconds="${FUZZ_SECONDS:-60}" ;;
  long) targets="$ALL"; seconds="${2:-600}" ;;
  campaign) targets="${2:?target}"; seconds="${3:-3600}"; maxruns="${4:-10000000}" ;;
  replay) targets="${2:?target}"; seconds=0 ;;
  *) targets="$mode"; seconds="${2:-60}" ;;
esac
work=Fuzz/corpus-work
mkdir -p "$work"

build() { # build TARGET asan|fast -> prints the binary path
  local t="$1" kind="$2" scratch flags
  if [ "$kind" = asan ]; then scratch=.build-fuzz; flags="--sanitize=fuzzer --sanitize=address"
  else scratch=.build-fuzz-fast; flags="--sanitize=fuzzer"; fi
  echo "fuzz: building $t ($kind)" >&2
  swift build -c release --package-path Fuzz --scratch-path "$PWD/$scratch" $flags -Xswiftc -sanitize=fuzzer --product "$t" 2>&1 | grep -E "error" >&2
  [ -x "$scratch/release/$t" ] || { echo "fuzz: build of $t failed" >&2; exit 1; }
  echo "$scratch/release/$t"
}

seed() { # copy the seeds of TARGET into its working corpus
  local t="$1" seeds="$work/$1" src pattern
  mkdir -p "$seeds" "Fuzz/artifacts/$t"
  case "$t" in
    FuzzBoxes) src="../shared/corpus ../shared/fixtures Conformance/files" ; pattern='.*\.(mp4|mov|heic|HEIC|heif|avif|m4a|m4v|3gp|mj2|bin)$|/malformed/' ;;
    FuzzCABI) src="../shared/corpus/spatial-photo ../shared/corpus/spatial-video ../shared/fixtures Conformance/files" ; pattern=".*" ;;
    FuzzImageHeaders) src="../shared/corpus ../shared/fixtures Conformance/files" ; pattern='.*\.(mpo|MPO|jpg|JPG|jpeg|JPEG|y4m)$' ;;
    FuzzPNG) src="../shared/corpus ../shared/fixtures Conformance/files" ; pattern='.*\.(png|PNG)$' ;;
    FuzzHEIF) src="../shared/corpus ../shared/fixtures Conformance/files" ; pattern='.*\.(heic|HEIC|heif|avif|hif)$' ;;
    FuzzHEVC) src="../shared/corpus ../shared/fixtures" ; pattern='.*\.(hevc|265|h265|bit)$' ;;
    FuzzJPEG) src="" ; pattern='' ;;   # seeds written by scripts/make_jpeg_seeds.py only (no third-party files)
    *) src="Conformance/files" ; pattern='.*' ;;
  esac
  for d in $src; do
    [ -d "$d" ] || continue
    find "$d" -type f -size -${FUZZ_MAX_SEED_KB:-100}k | grep -E "$pattern" | while read -r f; do cp -f "$f" "$seeds/$(echo "$f" | md5sum | cut -c1-16)"; done
  done
  if [ "$t" = FuzzImageHeaders ]; then
    # Headers sit at the start: the first 64 KiB of every larger JPEG, MPO and Y4M file (the MP index,
    # EXIF and the Y4M header line are all there).
    for d in $src; do
      [ -d "$d" ] || continue
      find "$d" -type f -size +${FUZZ_MAX_SEED_KB:-100}k | grep -E "$pattern" | while read -r f; do head -c 65536 "$f" > "$seeds/$(echo "$f" | md5sum | cut -c1-16)-head"; done
    done
  fi
  if [ "$t" = FuzzPNG ] && [ -z "$(ls "$seeds")" ]; then python3 scripts/make_png_seeds.py "$seeds" >&2; fi
  if [ "$t" = FuzzJPEG ]; then python3 scripts/make_jpeg_seeds.py "$seeds" >&2; fi
  if [ "$t" = FuzzHEVC ]; then
    # hvcC/lhvC records (and their parameter sets as Annex B) from the corpus movies and HEIF files.
    find ../shared/corpus ../shared/fixtures Conformance/files -type f 2>/dev/null | grep -iE '\.(mp4|mov|m4v|heic|heif)$' \
      | xargs -r python3 scripts/extract_hvcc_seeds.py "$seeds" >&2
    # Large seeds are mostly slice data; cut them to header-sized pieces (see the script).
    big=$(find "$seeds" -type f -size +16k)
    if [ -n "$big" ]; then python3 scripts/trim_hevc_seeds.py "$seeds" $big >&2 && rm -f $big; fi
  fi
}

maxlen() { case "$1" in FuzzHEVC) echo 16384 ;; FuzzPNG) echo 65536 ;; *) echo 131072 ;; esac; }

common="-rss_limit_mb=1024 -timeout=10 -print_final_stats=1"

replay() { # replay TARGET's corpus through the ASan build, each input once
  local t="$1" bin log
  bin=$(build "$t" asan) || exit 1
  log="Fuzz/artifacts/$t/replay.log"
  local n; n=$(ls "$work/$t" | wc -l)
  echo "fuzz: replaying $n inputs of $t through ASan" >&2
  SWIFT_BACKTRACE=enable=no "$bin" -runs=0 $common -max_len=$(maxlen "$t") -artifact_prefix="Fuzz/artifacts/$t/" "$work/$t" >"$log" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then tail -40 "$log" >&2; echo "fuzz: ASan replay of $t failed (exit $rc)" >&2; return 1; fi
  echo "$t: ASan replay of all $n corpus inputs: clean"
}

summary=""
for t in $targets; do
  seed "$t"
  log="Fuzz/artifacts/$t/last-run.log"
  if [ "$mode" = replay ]; then replay "$t" || exit 1; continue; fi
  if [ "$mode" = campaign ]; then
    bin=$(build "$t" fast) || exit 1
    extra="-runs=$maxruns"
    log="Fuzz/artifacts/$t/campaign.log"
  else
    bin=$(build "$t" asan) || exit 1
    extra=""
    # The smoke run (CI) is deterministic: a fixed seed and a fixed number of runs per target from the
    # seed corpus, bounded by $seconds; longer runs explore freely.
    if [ "$mode" = smoke ]; then
      case "$t" in
        FuzzBoxes) runs=20000 ;; FuzzHEVC) runs=1500 ;; FuzzHEIF) runs=30000 ;; FuzzCABI) runs=8000 ;; *) runs=100000 ;;
      esac
      extra="-seed=${FUZZ_SEED:-1} -runs=$runs"
    fi
  fi
  echo "fuzz: running $t for at most ${seconds}s on $(ls "$work/$t" | wc -l) seeds" >&2
  start=$(date +%s)
  SWIFT_BACKTRACE=enable=no "$bin" $extra -max_total_time="$seconds" $common -max_len=$(maxlen "$t") \
    -artifact_prefix="Fuzz/artifacts/$t/" "$work/$t" >"$log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  execs=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}')
  rss=$(grep -E "stat::peak_rss_mb" "$log" | awk '{print $2}')
  cov=$(grep -oE "cov: [0-9]+" "$log" | tail -1)
  summary="$summary\n$t: exit $rc, ${execs:-?} executions in ${elapsed}s, ${cov:-cov: ?} edges, peak RSS ${rss:-?} MB"
  if [ "$rc" -ne 0 ]; then
    tail -40 "$log" >&2
    echo "fuzz: $t found a problem (exit $rc); inputs in Fuzz/artifacts/$t/" >&2
    printf "$summary\n"
    exit 1
  fi
  if [ "$mode" = campaign ]; then
    r=$(replay "$t") || { printf "$summary\n"; exit 1; }
    summary="$summary\n$r"
  fi
done
printf "$summary\n"
