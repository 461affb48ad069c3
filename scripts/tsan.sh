#!/usr/bin/env bash
# ThreadSanitizer run of the suites that drive the library's parallel paths: batch validation
# (concurrentPerform over files), HEIC grid decoding (a libde265 context per worker), photo and video
# conversion (two x265 encoders on their own threads, bounded frame queues), the stereo geometry
# (parallelMap) and the C ABI's multi-thread tests. Swift Testing runs the selected tests concurrently
# as well. Fails when TSan reports anything. Takes ~15 minutes on 2 cores (instrumented build included).
set -uo pipefail
cd "$(dirname "$0")/.."
log=${TSAN_LOG:-.build-tsan/tsan-run.log}
mkdir -p .build-tsan
swift build --build-tests --sanitize=thread --scratch-path .build-tsan 2>&1 | grep -E "error|Compiling|Build complete" | tail -3
TSAN_OPTIONS="halt_on_error=0 history_size=4 ${TSAN_OPTIONS:-}" swift test --skip-build --sanitize=thread --scratch-path .build-tsan \
  --filter "MetadataRuleTests|ConversionTests|VideoConversionTests|HEVCCodecTests|BadCallTests|ReadEditTests|OperationsTests|AccuracyHarnessTests|ConvertedVideoTests" >"$log" 2>&1
rc=$?
races=$(grep -c "WARNING: ThreadSanitizer" "$log")
grep -E "Test run with" "$log" | tail -1
echo "ThreadSanitizer reports: $races (log: $log)"
[ "$rc" -eq 0 ] && [ "$races" -eq 0 ]
