#!/usr/bin/env bash
# Runs the Dask example's tests in a throw-away virtual environment: the spatialmedia wheel (built here
# unless WHEEL names one), dask and distributed from PyPI, pytest. Nothing is left behind.
#
#   bash examples/dask/run-tests.sh                       # builds a wheel (SPATIALMEDIA_SWIFT_CONFIG etc. apply)
#   WHEEL=dist/spatialmedia-0.2.0-py3-none-linux_x86_64.whl SPATIALMEDIA_CLI=.build/release/spatial-media \
#     bash examples/dask/run-tests.sh
#
# SPATIALMEDIA_CLI: a built spatial-media to compare verdicts with (default: the newer of .build/release and .build/debug).
# SPATIALMEDIA_SHARED: the shared directory holding corpus/ (default ../shared).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
python="${PYTHON:-python3}"
work=$(mktemp -d "${TMPDIR:-/tmp}/sm-dask-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
wheel="${WHEEL:-}"
if [ -z "$wheel" ]; then
  "$python" -m venv "$work/build" && "$work/build/bin/pip" wheel --no-deps -q -w "$work/dist" . > "$work/wheel.log" 2>&1 \
    || { tail -30 "$work/wheel.log"; echo "dask tests: pip wheel failed" >&2; exit 1; }
  wheel=$(ls "$work"/dist/spatialmedia-*.whl | head -1)
fi
cli="${SPATIALMEDIA_CLI:-}"
if [ -z "$cli" ]; then
  # The most recently built one: a stale release binary must not stand in for today's debug build.
  newest=$(ls -t .build/release/spatial-media .build/debug/spatial-media 2>/dev/null | head -1 || true)
  [ -n "$newest" ] && cli="$root/$newest"
fi
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel" "dask[distributed]" pytest > "$work/install.log" 2>&1 \
  || { tail -30 "$work/install.log"; echo "dask tests: pip install failed" >&2; exit 1; }
set +e
env SPATIALMEDIA_CLI="$cli" SPATIALMEDIA_SHARED="$(cd "${SPATIALMEDIA_SHARED:-../shared}" 2>/dev/null && pwd || echo /nonexistent)" \
  "$work/venv/bin/python" -m pytest -p no:cacheprovider -q -rs -s examples/dask/test_validate_directory.py examples/dask/test_convert_segments.py 2>&1 | tee "$work/pytest.txt"
status=${PIPESTATUS[0]}
set -e
# pytest exits 5 when it collected no test: that is a failure too.
[ "$status" -eq 0 ] || { echo "dask tests: pytest exited $status" >&2; exit 1; }
grep -qE '^[0-9]+ passed' "$work/pytest.txt" || { echo "dask tests: no test passed" >&2; exit 1; }
