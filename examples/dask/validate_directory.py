#!/usr/bin/env python3
"""Validate every file of a directory on a Dask cluster through the `spatialmedia` Python package.

    pip install spatialmedia-*.whl "dask[distributed]"
    python examples/dask/validate_directory.py ../shared/corpus --workers 2 > reports.json
    python examples/dask/validate_directory.py /data/uploads --scheduler tcp://scheduler:8786 --no-pixels

The inputs are expanded exactly as the command line does (`spatialmedia.validation_inputs`: directories
recursively, non-media files skipped, NAME_L/NAME_R images as pairs). Each input is one task: the worker calls `spatialmedia.validate(path)` (the same checks as
`spatial-media validate --json FILE`), which runs natively with the GIL released, and sends back the
report's JSON object. The reports are printed to standard output as one JSON array, in the order of the
file list, like `spatial-media validate --json DIR`; a summary (files, seconds, files/s, worst exit code)
goes to standard error. The exit code is the worst report's (0 clean, 1 problems, 2 unreadable).

With `--scheduler` the files must be reachable under the same paths on every worker (a shared file system);
with `--workers N` (default 2) a LocalCluster of N single-threaded worker processes is started here.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Optional, Tuple, Union


Input = Union[str, Tuple[str, str]]


def list_inputs(inputs: list[str]) -> list[Input]:
    """Exactly what `spatial-media validate INPUTS…` checks, in its order: the library expands directories
    (recursively, hidden names and non-media files skipped) and pairs NAME_L/NAME_R images; pairs come first,
    as (left, right), then the files."""
    import spatialmedia
    plan = spatialmedia.validation_inputs(inputs)
    for d in plan.directories_without_media:
        print(f"validate_directory: no media files in {d} (searched recursively)", file=sys.stderr)
    if plan.skipped:
        print(f"validate_directory: skipped {len(plan.skipped)} files that are not media", file=sys.stderr)
    return [tuple(p) for p in plan.pairs] + list(plan.files)


def validate_one(item: Input, pixels: bool, frames: Optional[int], layout: Optional[str]) -> dict[str, Any]:
    """Runs on a worker: one input's report as a JSON-ready dict. A failure of the binding itself (not a
    finding: those are in the report) becomes a report with kind "error" and exit code 2."""
    import spatialmedia
    path, right = (item, None) if isinstance(item, str) else item
    try:
        return spatialmedia.validate(path, pixels=pixels, frames=frames, layout=layout, right_eye=right).raw
    except spatialmedia.SpatialMediaError as e:
        return {"file": path, "kind": "error", "spatial": False, "why_not_spatial": [], "worst": "error",
                "exit_code": 2, "metadata": {}, "geometry": [],
                "findings": [{"rule": "SV-FILE-001", "severity": "error", "title": "", "source": "",
                              "location": e.box_path or "", "message": str(e)}]}


def validate_batch(paths: list[Input], pixels: bool, frames: Optional[int], layout: Optional[str]) -> list[dict[str, Any]]:
    """Runs on a worker: several files in one task (a task costs a few milliseconds of scheduling, more than
    a metadata-only validation of a small file)."""
    return [validate_one(p, pixels, frames, layout) for p in paths]


def validate_on_cluster(files: list[Input], client: Any, pixels: bool = True, frames: Optional[int] = None,
                        layout: Optional[str] = None, batch: int = 1) -> list[dict[str, Any]]:
    """Fans `validate_one` over `files` on a connected dask.distributed Client, `batch` files per task;
    reports in file order."""
    if __name__ != "__main__":
        # Imported as a module (e.g. by a test): ship this module's code to the workers, which may not
        # have it on their path. Run as a script, cloudpickle does that for __main__ anyway.
        import cloudpickle
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    if batch <= 1:
        futures = client.map(validate_one, files, pixels=pixels, frames=frames, layout=layout, pure=False)
        return list(client.gather(futures))
    chunks = [files[i:i + batch] for i in range(0, len(files), batch)]
    futures = client.map(validate_batch, chunks, pixels=pixels, frames=frames, layout=layout, pure=False)
    return [report for chunk in client.gather(futures) for report in chunk]


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="files and directories to validate")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    ap.add_argument("--no-pixels", action="store_true", help="check metadata only; do not decode pixels")
    ap.add_argument("--frames", type=int, help="video frames measured per file (1…100)")
    ap.add_argument("--layout", choices=["sbs", "tb"], help="frame-packed input layout")
    ap.add_argument("--batch", type=int, default=1, help="files per task (default 1; larger for many small files)")
    ap.add_argument("-o", "--output", help="write the JSON array here instead of standard output")
    a = ap.parse_args(argv)

    from dask.distributed import Client, LocalCluster
    files = list_inputs(a.inputs)
    if not files:
        print(f"validate_directory: no files in {', '.join(a.inputs)}", file=sys.stderr)
        return 64
    cluster = None
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
    try:
        start = time.perf_counter()
        reports = validate_on_cluster(files, client, pixels=not a.no_pixels, frames=a.frames, layout=a.layout,
                                      batch=a.batch)
        seconds = time.perf_counter() - start
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    text = json.dumps(reports, indent=2, ensure_ascii=False)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    worst = max((int(r.get("exit_code", 2)) for r in reports), default=0)
    workers = "scheduler " + a.scheduler if a.scheduler else f"LocalCluster of {a.workers} workers"
    print(f"validated {len(reports)} files in {seconds:.2f} s ({len(reports) / seconds:.1f} files/s) on {workers}; "
          f"worst exit code {worst}", file=sys.stderr)
    return worst


if __name__ == "__main__":
    sys.exit(main())
