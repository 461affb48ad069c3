"""Long operations that write files: ``convert`` (one call for photos and videos, routed by the library from
what the input is), ``concat``, ``split``, ``align`` and ``fix``. Options go to the library as given; every default, range,
unit and route is the library's (the same plan the command line runs)."""
from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Optional, Sequence, Union

from ._core import CancelToken, PathLike, ProgressCallback, _call_report, _check, _fspath, _lib, _options_json, _Progress, _take_string
from ._errors import invalid_argument
from ._types import ConcatReport, ConvertReport, EditReport, SplitReport

_TABLES: dict[str, list[dict[str, Any]]] = {}


def option_table(job: str = "convert") -> list[dict[str, Any]]:
    """The library's name table of a job (``sm_option_table``): one row per option with its JSON ``key``, command
    line ``flag``, Python keyword (``python``), ``type``, which jobs take it (``applies``) and its ``default``."""
    if job not in _TABLES:
        out = ctypes.c_void_p()
        _check(_lib().sm_option_table(job.encode(), ctypes.byref(out)), "sm_option_table")
        _TABLES[job] = json.loads(_take_string(out) or "[]")
    return _TABLES[job]


def convert(input: PathLike, output: PathLike, *, right_input: Optional[PathLike] = None,
            layout: Optional[str] = None, half_resolution: Optional[bool] = None, swap_eyes: Optional[bool] = None,
            baseline_mm: Optional[float] = None, baseline_um: Optional[int] = None,
            hfov_degrees: Optional[float] = None, hfov_millidegrees: Optional[int] = None,
            disparity_percent: Optional[float] = None, disparity: Optional[int] = None,
            align: Optional[bool] = None, auto_disparity: Optional[bool] = None, strict: Optional[bool] = None,
            force: Optional[bool] = None, quality: Optional[int] = None, bit_depth: Optional[int] = None,
            left_gain_map: Optional[PathLike] = None, right_gain_map: Optional[PathLike] = None,
            left_depth: Optional[PathLike] = None, right_depth: Optional[PathLike] = None, photo_form: Optional[str] = None,
            threads: Optional[int] = None, crf: Optional[float] = None, bitrate: Optional[int] = None,
            eye_quality: Optional[str] = None, max_bitrate: Optional[int] = None, vbv_bufsize: Optional[int] = None,
            apple_preset: Optional[str] = None, encode_path: Optional[str] = None, qp: Optional[int] = None,
            segment: Union[str, tuple[int, int], None] = None, preset: Optional[str] = None,
            keyint: Optional[int] = None, bframes: Optional[int] = None, sdr: Optional[bool] = None,
            audio: Optional[str] = None,
            audio_from: Optional[PathLike] = None, no_audio: Optional[bool] = None, hero_eye: Optional[str] = None,
            base_eye: Optional[str] = None, frame_rate: Union[str, float, tuple[int, int], None] = None,
            decoder: Optional[str] = None, threads_per_eye: Optional[int] = None, layer_sps: Optional[str] = None,
            container: Optional[str] = None, faststart: Optional[bool] = None, keep_streams: Optional[PathLike] = None,
            projection: Optional[str] = None, progress: Optional[ProgressCallback] = None, cancel: Optional[CancelToken] = None) -> ConvertReport:
    """Converts a stereo source into a spatial photo or a spatial video: ``spatial-media convert`` (``sm_convert``).

    What is made follows what ``input`` is (a stereo image or MPO → a photo; a frame-packed video → a spatial
    video; with ``right_input``: two images, two videos or two raw HEVC streams), never the output's name, and the
    output must be named for it (.heic; .mov, or .mp4 with ``container="mp4"``). Every keyword is a row of the
    library's name table (``option_table()``), with the command line's flag and default; Stereo values in either
    unit (``baseline_mm`` or ``baseline_um``, …), ``frame_rate`` as "24", 29.97 or ``(30000, 1001)``, ``segment``
    as "2/4" or ``(2, 4)``. The written file is read back through the validator before it is kept; the report
    (``report.raw``) is the JSON of ``spatial-media convert --json``. ``progress(fraction, stage)`` returning True,
    or ``cancel.cancel()``, stops the work: CancelledError, and no output is written.
    """
    given = locals()
    opts: dict[str, Any] = {"right_input": None if right_input is None else os.fspath(right_input)}
    for row in option_table("convert"):
        value = given[row["python"]]
        if value is not None and row["type"] == "path":
            value = os.fspath(value)
        opts[row["key"]] = value
    p = _Progress(progress)
    raw = _call_report("sm_convert", [_fspath(input), _fspath(output), _options_json(opts), p.fn, None,
                                      cancel._ref() if cancel else None], p)
    return ConvertReport(output=str(raw.get("output", os.fspath(output))), kind="photo" if raw.get("route") == "photo" else "video",
                         bytes_written=raw.get("bytes_written", raw.get("bytes")), frames=raw.get("frames"), raw=raw)


def concat(segments: Sequence[PathLike], output: PathLike, *, audio_from: Optional[PathLike] = None,
           no_audio: bool = False, progress: Optional[ProgressCallback] = None,
           cancel: Optional[CancelToken] = None) -> ConcatReport:
    """Joins the segment files of one conversion (``convert(..., segment=(k, n))``, in any order) into one
    spatial video without re-encoding. The audio of ``audio_from`` (the converted input) is carried once,
    whole; or ``no_audio=True``. Segments that are not every segment of one conversion (other settings or
    input, a gap, a duplicate) raise an error and nothing is written."""
    if isinstance(segments, (str, bytes, os.PathLike)):
        raise invalid_argument("segments must be a sequence of paths, not one path")
    paths = [os.fspath(p) for p in segments]
    if not paths:
        raise invalid_argument("give the segment files")
    opts = {"audio_from": None if audio_from is None else os.fspath(audio_from), "no_audio": True if no_audio else None}
    p = _Progress(progress)
    raw = _call_report("sm_concat_video", [json.dumps(paths).encode(), _fspath(output), _options_json(opts), p.fn, None,
                                           cancel._ref() if cancel else None], p)
    return ConcatReport(output=str(raw.get("output", os.fspath(output))), bytes_written=int(raw.get("bytes_written", 0)),
                        frames=int(raw.get("frames", 0)), segments=int(raw.get("segments", 0)),
                        audio=list(raw.get("audio", [])), seconds=float(raw.get("seconds", 0.0)), raw=raw)


def split(input: PathLike, left_output: Optional[PathLike], right_output: Optional[PathLike], *,
          sbs_output: Optional[PathLike] = None, ou_output: Optional[PathLike] = None, half: Optional[bool] = None,
          copy: Optional[bool] = None, crf: Optional[float] = None, preset: Optional[str] = None,
          no_audio: Optional[bool] = None, quality: Optional[int] = None, layout: Optional[str] = None,
          aux_dir: Optional[PathLike] = None, progress: Optional[ProgressCallback] = None,
          cancel: Optional[CancelToken] = None) -> SplitReport:
    """Splits a stereo photo or video into its eyes: ``spatial-media split`` (``sm_split``).

    Inputs: spatial photos, MPO, side-by-side / top-bottom JPEG, PNG or HEIC pictures (``layout``: "sbs", "tb" or
    "auto"), MV-HEVC movies, frame-packed movies (flat or VR180/360 spheres; their metadata, or ``layout``). Each
    output is named for what is written: photo eyes .png, .jpg, .heic (``quality``; ``aux_dir``: a spatial photo's
    gain map, depth … per eye as EYE-KIND.heic and .png); video eyes .mp4, .mov or .mkv re-encoded (``crf``,
    ``preset``, ``no_audio``), or .hevc, a copy of the coded pictures (what ``copy`` asks for; an .hevc output means
    it). ``left_output`` or ``right_output`` may be None. ``sbs_output`` / ``ou_output`` (``half``: half size) beside
    the eyes is written after them. The keywords are the rows of ``option_table("split")``; every output is read back
    through the validator before it is kept; the report (``report.raw``) is the JSON of the split's report.
    ``progress(fraction, stage)`` returning True, or ``cancel.cancel()``, stops the work: CancelledError."""
    opts = {k: v for k, v in _table_options("split", locals()).items() if k not in ("left_output", "right_output")}
    p = _Progress(progress)
    raw = _call_report("sm_split", [_fspath(input), _fspath(left_output), _fspath(right_output), _options_json(opts),
                                    p.fn, None, cancel._ref() if cancel else None], p)
    return SplitReport(input=str(raw.get("input", "")), left_output=str(raw.get("left_output", "")),
                       right_output=str(raw.get("right_output", "")), sbs_output=raw.get("sbs_output"), ou_output=raw.get("ou_output"), raw=raw)


def _table_options(job: str, given: dict[str, Any]) -> dict[str, Any]:
    """The options of ``job`` by its name table: each row's Python keyword read from ``given`` under its JSON key
    (paths as strings)."""
    rows = option_table(job)
    return {row["key"]: os.fspath(given[row["python"]]) if row["type"] == "path" and given[row["python"]] is not None
            else given[row["python"]] for row in rows}


def align(input: PathLike, output: PathLike, *, auto_disparity: Optional[bool] = None, quality: Optional[int] = None,
          progress: Optional[ProgressCallback] = None, cancel: Optional[CancelToken] = None) -> ConvertReport:
    """Rectifies a spatial photo: ``spatial-media align`` (``sm_align_photo``). The right eye is warped onto the left,
    both are cropped to the common area and written as a new spatial photo (``output``, named .heic) with the field
    of view updated for the crop. The keywords are the rows of ``option_table("align")``; the report (``report.raw``)
    is the JSON of ``spatial-media align --json``."""
    opts = _table_options("align", locals())
    p = _Progress(progress)
    raw = _call_report("sm_align_photo", [_fspath(input), _fspath(output), _options_json(opts), p.fn, None,
                                          cancel._ref() if cancel else None], p)
    return ConvertReport(output=str(raw.get("output", os.fspath(output))), kind="photo", bytes_written=raw.get("bytes"), frames=None, raw=raw)


def fix(input: PathLike, output: Optional[PathLike] = None, *, hfov_degrees: Optional[float] = None, hero_eye: Optional[str] = None,
        progress: Optional[ProgressCallback] = None, cancel: Optional[CancelToken] = None) -> EditReport:
    """Repairs a movie without re-encoding: ``spatial-media fix`` (``sm_fix_video``): hev1 → hvc1, moov before mdat,
    a missing hero eye or field of view. ``output`` None repairs ``input`` in place. The keywords are the rows of
    ``option_table("fix")``; ``report.changes`` lists the repairs, ``report.raw["not_repaired"]`` what is left (the
    command line's exit 1); the report is the JSON of ``spatial-media fix --json``."""
    opts = _table_options("fix", locals())
    p = _Progress(progress)
    raw = _call_report("sm_fix_video", [_fspath(input), _fspath(output), _options_json(opts), p.fn, None,
                                        cancel._ref() if cancel else None], p)
    return EditReport(output=str(raw.get("output", "")), changes=list(raw.get("repairs", [])), warnings=list(raw.get("not_repaired", [])),
                      strategy=None, bytes_written=raw.get("bytes_written"), raw=raw)
