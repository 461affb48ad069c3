#!/usr/bin/env bash
# Rewrites the CLI goldens in Conformance/snapshots/ (info, info --json, validate and dump of every generated file in
# Conformance/files, and the help text of every subcommand) from the built binary, by running the snapshot tests
# with UPDATE_SNAPSHOTS=1: the one place that lists the cases and normalises the output. Review the diff and commit it.
#
#   bash scripts/update-snapshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf Conformance/snapshots
UPDATE_SNAPSHOTS=1 swift test --filter 'CLITests.SnapshotTests' 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] ' | tail -5
echo "update-snapshots: $(find Conformance/snapshots -type f | wc -l) goldens in Conformance/snapshots; review with git diff"
