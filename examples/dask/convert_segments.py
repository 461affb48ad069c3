#!/usr/bin/env python3
"""Convert a 3D video to a spatial video on a Dask cluster: segments of whole GOPs fanned out, then joined.

    pip install spatialmedia-*.whl "dask[distributed]"
    python examples/dask/convert_segments.py film_sbs.mp4 -o film.mov --segments 8 --workers 2
    python examples/dask/convert_segments.py /shared/film_sbs.mp4 -o /shared/film.mov --segments 64 \\
        --scheduler tcp://scheduler:8786 --work-dir /shared/segments --qp 24 --keyint 48

Segment k of n is one task: the worker calls `spatialmedia.convert(input, segment_k.mov, segment=(k, n), …)`
(`spatial-media convert --segment k/n`), which encodes only its run of whole closed GOPs (cut from the
input's frame count and the fixed GOP length, so every worker cuts at the same frames) with fresh encoders and
no audio, and records its frame range in the file. When all tasks are done, `spatialmedia.concat` joins the
segment files here without re-encoding, writing the spatial metadata once and the input's audio once, whole.
A JSON summary (per-segment frames and seconds, join seconds, total wall time) goes to standard output.

Equality: x265's constant-quantizer mode (`--qp`) keeps no state from one closed GOP to the next, so the joined
file decodes frame for frame like a one-process conversion with the same settings (`--compare` checks that with
FFmpeg's frame md5 of both views). With a rate factor (`--crf`, the default of `convert`) or a bitrate the rate
control carries state across GOPs: each segment is a valid encode at the same settings, but the pictures differ
slightly from a one-process encode.

With `--scheduler` the input, `--work-dir` and the output must be reachable under the same paths on every worker
(a shared file system); with `--workers N` (default 2) a LocalCluster of N single-threaded worker processes is
started here. Each worker's conversion runs two x265 encoders at once (one per eye), natively, GIL released.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any, Optional


def convert_segment(input: str, segment_path: str, k: int, n: int, options: dict[str, Any]) -> dict[str, Any]:
    """Runs on a worker: segment k of n of `input` to `segment_path`; the conversion report plus wall seconds."""
    import spatialmedia
    start, cpu = time.perf_counter(), time.process_time()
    report = spatialmedia.convert(input, segment_path, segment=(k, n), audio="none", **options)
    # A worker runs one task at a time (threads_per_worker=1): the process's CPU time is this conversion's.
    return {"segment": k, "path": segment_path, "frames": report.frames, "bytes": report.bytes_written,
            "seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu, "worker_pid": os.getpid()}


def convert_on_cluster(input: str, output: str, client: Any, segments: int, work_dir: str,
                       options: Optional[dict[str, Any]] = None, audio_from: Optional[str] = None,
                       no_audio: bool = False, keep_segments: bool = False) -> dict[str, Any]:
    """Fans the `segments` segment conversions of `input` out on a connected dask.distributed Client (segment
    files in `work_dir`), joins them into `output` and returns a summary. The audio comes from `audio_from`
    (default: `input`) unless `no_audio`."""
    import spatialmedia
    if __name__ != "__main__":
        # Imported as a module (e.g. by a test): ship this module's code to the workers.
        import cloudpickle
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    options = dict(options or {})
    stem = os.path.splitext(os.path.basename(output))[0]
    paths = [os.path.join(work_dir, f"{stem}.segment-{k}-of-{segments}.mov") for k in range(1, segments + 1)]
    start = time.perf_counter()
    futures = [client.submit(convert_segment, input, p, k, segments, options, pure=False)
               for k, p in enumerate(paths, start=1)]
    try:
        done = client.gather(futures)
        encoded = time.perf_counter()
        joined = spatialmedia.concat(paths, output, audio_from=None if no_audio else (audio_from or input),
                                     no_audio=no_audio)
    finally:
        if not keep_segments:
            for p in paths:
                try:
                    os.remove(p)
                except FileNotFoundError:
                    pass
    end = time.perf_counter()
    return {"input": input, "output": output, "segments": sorted(done, key=lambda d: d["segment"]),
            "frames": joined.frames, "bytes": joined.bytes_written, "audio": joined.audio,
            "encode_seconds": encoded - start, "join_seconds": end - encoded, "seconds": end - start,
            "segments_cpu_seconds": sum(d.get("cpu_seconds", 0.0) for d in done)}


def frame_md5s(ffmpeg: str, path: str, view: str) -> list[str]:
    """Frame md5s of one view (left/right) decoded by FFmpeg 7.1 or newer (MV-HEVC)."""
    import subprocess
    out = subprocess.run([ffmpeg, "-v", "error", "-i", path, "-map", f"0:v:0:vpos:{view}", "-f", "framemd5", "-"],
                         capture_output=True, text=True, check=True).stdout
    return [line.rsplit(",", 1)[-1].strip() for line in out.splitlines() if line and not line.startswith("#")]


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="frame-packed 3D video (Y4M, MP4/MOV, anything FFmpeg reads with a known frame count)")
    ap.add_argument("-o", "--output", required=True, help="spatial video to write (.mov/.mp4)")
    ap.add_argument("--segments", type=int, default=4, help="number of segments (default 4)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    ap.add_argument("--work-dir", help="where segment files go (default: a temporary directory beside the output)")
    ap.add_argument("--keep-segments", action="store_true", help="leave the segment files in --work-dir")
    ap.add_argument("--layout", choices=["sbs", "tb", "half-sbs", "half-tb"], help="frame packing (default sbs)")
    rc = ap.add_mutually_exclusive_group()
    rc.add_argument("--qp", type=int, help="constant quantizer 0…51 (segments decode exactly as one conversion)")
    rc.add_argument("--crf", type=int, help="x265 rate factor 0…51 (the converter's default, 23)")
    ap.add_argument("--preset", help="x265 preset (default medium)")
    ap.add_argument("--keyint", type=int, help="GOP length in frames (default 2 s of frames)")
    ap.add_argument("--bframes", type=int, help="B-frames (default 3)")
    ap.add_argument("--audio-from", help="take the audio from this file (default: the input)")
    ap.add_argument("--no-audio", action="store_true", help="no audio track")
    ap.add_argument("--compare", action="store_true",
                    help="also convert in this process (same settings) and compare both views' frame md5 (needs ffmpeg ≥ 7.1: --ffmpeg)")
    ap.add_argument("--ffmpeg", default=os.environ.get("SPATIAL_MEDIA_FFMPEG", "ffmpeg"), help="ffmpeg for --compare")
    a = ap.parse_args(argv)

    options = {k: v for k, v in {"layout": a.layout, "qp": a.qp, "crf": a.crf, "preset": a.preset,
                                 "keyint": a.keyint, "bframes": a.bframes}.items() if v is not None}
    out_dir = os.path.dirname(os.path.abspath(a.output))
    one = os.path.join(out_dir, "." + os.path.basename(a.output) + ".one-process.mov")
    one_seconds = one_cpu = None
    import atexit
    atexit.register(lambda: os.path.exists(one) and os.remove(one))
    if a.compare:
        # The same conversion in this process, first (before the cluster starts), for the comparison.
        import spatialmedia
        start, cpu = time.perf_counter(), time.process_time()
        spatialmedia.convert(a.input, one, audio="none" if a.no_audio else None, **options)
        one_seconds, one_cpu = time.perf_counter() - start, time.process_time() - cpu
    from dask.distributed import Client, LocalCluster
    cluster = None
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
    tmp = None if a.work_dir else tempfile.TemporaryDirectory(prefix=".segments-", dir=out_dir)
    try:
        summary = convert_on_cluster(os.path.abspath(a.input), os.path.abspath(a.output), client, a.segments,
                                     a.work_dir or tmp.name, options, audio_from=a.audio_from, no_audio=a.no_audio,
                                     keep_segments=a.keep_segments)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        if tmp is not None:
            tmp.cleanup()
    summary["cluster"] = "scheduler " + a.scheduler if a.scheduler else f"LocalCluster of {a.workers} workers"
    status = 0
    if a.compare:
        summary["one_process_seconds"], summary["one_process_cpu_seconds"] = one_seconds, one_cpu
        try:
            same = {v: frame_md5s(a.ffmpeg, one, v) == frame_md5s(a.ffmpeg, a.output, v) for v in ("left", "right")}
            import filecmp
            summary["file_identical_to_one_process"] = filecmp.cmp(one, a.output, shallow=False)
        finally:
            if os.path.exists(one):
                os.remove(one)
        summary["views_identical_to_one_process"] = same
        summary["speedup"] = summary["one_process_seconds"] / summary["seconds"]
        status = 0 if all(same.values()) else 1
    print(json.dumps(summary, indent=2))
    print(f"converted {summary['frames']} frames in {a.segments} segments in {summary['seconds']:.2f} s on "
          f"{summary['cluster']} (join {summary['join_seconds']:.2f} s)"
          + (f"; one process {summary['one_process_seconds']:.2f} s; views identical: {summary['views_identical_to_one_process']}"
             if a.compare else ""), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
