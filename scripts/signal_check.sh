#!/usr/bin/env bash
# Signal check (issue 18): sends one SIGTERM or SIGINT to the process (not its group) at a random moment of an
# FFmpeg-decoded video conversion, RUNS times per signal, and checks every run: exit status 143/130 from our own
# handler (its message on stderr), exit within MAX_SECONDS of the signal, no child process left, no temporary
# file left (a private TMPDIR and the output directory), no output file.
#
# Usage: scripts/signal_check.sh [RUNS_PER_SIGNAL=20] [MAX_SECONDS=2]
# Environment: SPATIAL_MEDIA_BIN (default .build/debug/spatial-media), SPATIAL_MEDIA_FFMPEG (default: the
# FFmpeg of .venv-oracles). Exit 0 all passed, 1 a run failed, 77 skipped (binary or FFmpeg absent).
set -u
# Job control on: background jobs keep the default SIGINT disposition (without it bash starts them with SIGINT
# ignored, and the signal this check sends would be dropped before the tool even runs).
set -m
RUNS=${1:-20}
MAX=${2:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SPATIAL_MEDIA_BIN:-$ROOT/.build/debug/spatial-media}
FF=${SPATIAL_MEDIA_FFMPEG:-$(ls "$ROOT"/.venv-oracles/lib/python3.11/site-packages/imageio_ffmpeg/binaries/ffmpeg-* 2>/dev/null | tail -1)}
[ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
[ -n "$FF" ] && [ -x "$FF" ] || { echo "skip: no FFmpeg (set SPATIAL_MEDIA_FFMPEG)"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/signal-check-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/tmp" "$WORK/out"
"$FF" -v error -f lavfi -i testsrc=size=320x96:rate=30 -t 30 -c:v mpeg4 -q:v 5 "$WORK/in.mkv" || { echo "FFmpeg could not make the input"; exit 1; }
now() { date +%s.%N; }
convert() { TMPDIR="$WORK/tmp" SPATIAL_MEDIA_FFMPEG="$FF" "$BIN" convert "$WORK/in.mkv" --layout sbs -o "$WORK/out/o.mov" --preset ultrafast; }

t0=$(now)
convert >/dev/null 2>"$WORK/err" || { echo "uninterrupted run failed: $(tail -c 300 "$WORK/err")"; exit 1; }
DUR=$(echo "$(now) - $t0" | bc -l)
rm -f "$WORK/out/o.mov"
echo "uninterrupted conversion: ${DUR} s"

pass=0; fail=0; early=0; worst=0
for sig in TERM INT; do
  want=$([ $sig = TERM ] && echo 143 || echo 130)
  for i in $(seq 1 "$RUNS"); do
    delay=$(awk -v d="$DUR" -v r="$RANDOM" 'BEGIN { printf "%.3f", 0.05 + (d * 0.7 - 0.05) * r / 32767 }')
    # The tool itself in the background (not a subshell running it): $! is its pid.
    TMPDIR="$WORK/tmp" SPATIAL_MEDIA_FFMPEG="$FF" "$BIN" convert "$WORK/in.mkv" --layout sbs -o "$WORK/out/o.mov" --preset ultrafast >/dev/null 2>"$WORK/err" &
    pid=$!
    sleep "$delay"
    kids=$(cat /proc/$pid/task/*/children 2>/dev/null)
    if ! kill -0 "$pid" 2>/dev/null; then wait "$pid"; early=$((early + 1)); rm -f "$WORK/out/o.mov"; continue; fi
    kill -s "$sig" "$pid"
    ts=$(now)
    # A watchdog so that a deadlock fails the run instead of hanging the check.
    ( sleep 20; kill -KILL "$pid" 2>/dev/null ) & dog=$!
    wait "$pid"; rc=$?
    took=$(echo "$(now) - $ts" | bc -l)
    kill "$dog" 2>/dev/null; wait "$dog" 2>/dev/null
    problems=""
    [ "$rc" = "$want" ] || { [ "$rc" = 0 ] && [ -f "$WORK/out/o.mov" ]; } || problems+=" exit $rc (want $want)"
    # Before the handler is installed (process start-up, no child yet) the default action ends the process, which
    # is fine: there is nothing to clean up. Once a child runs, the handler must have done the work.
    if [ -n "$kids" ]; then grep -q "interrupted" "$WORK/err" || problems+=" no interruption message (killed, not handled)"; fi
    [ "$(echo "$took > $MAX" | bc -l)" = 1 ] && problems+=" took ${took} s"
    for k in $kids; do kill -0 "$k" 2>/dev/null && problems+=" child $k left"; done
    [ -z "$(ls -A "$WORK/tmp")" ] || problems+=" temp files: $(ls -A "$WORK/tmp" | tr '\n' ' ')"
    # A signal that lands after the finished output was renamed into place (the job's last step) leaves that whole
    # file: counted as finished before the signal when it is the only entry and reads back whole; anything else is a
    # half-written leftover.
    if [ "$(ls -A "$WORK/out")" = "o.mov" ] && "$BIN" info "$WORK/out/o.mov" >/dev/null 2>&1; then
      committed=1
    else
      committed=0
      [ -z "$(ls -A "$WORK/out")" ] || problems+=" output dir: $(ls -A "$WORK/out" | tr '\n' ' ')"
    fi
    [ "$(echo "$took > $worst" | bc -l)" = 1 ] && worst=$took
    if [ -z "$problems" ] && [ "$committed" = 1 ]; then early=$((early + 1)); rm -f "$WORK/out/o.mov"
    elif [ -z "$problems" ]; then pass=$((pass + 1)); else
      fail=$((fail + 1)); echo "SIG$sig after ${delay} s:$problems"
      for k in $kids; do kill -KILL "$k" 2>/dev/null; done
      rm -rf "$WORK/tmp"/* "$WORK/out"/* "$WORK/out"/.[!.]* 2>/dev/null
    fi
  done
done
printf '%d passed, %d failed, %d finished before the signal; slowest exit after the signal %.3f s\n' "$pass" "$fail" "$early" "$worst"
[ "$fail" = 0 ]
