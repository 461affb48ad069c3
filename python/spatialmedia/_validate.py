"""Validation: ``validate`` (a path or an open file) and ``validation_inputs`` (what a directory holds)."""
from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Iterable, Optional, Union

from ._core import CancelToken, PathLike, ProgressCallback, _call_report, _fspath, _options_json, _Progress
from ._errors import invalid_argument
from ._types import ValidationInputs, ValidationReport

if TYPE_CHECKING:
    from ._file import SpatialFile


def _validation_options(pixels: bool, layout: Optional[str], frames: Optional[int], hfov: Optional[float] = None,
                        disparity: Optional[float] = None, baseline: Optional[float] = None) -> Optional[bytes]:
    """The options of ``sm_validate``/``sm_validate_path`` as given; the library checks them."""
    return _options_json({"pixels": bool(pixels), "layout": layout, "frames": frames, "hfov_degrees": hfov,
                          "disparity_percent": disparity, "baseline_mm": baseline})


def validate(path: Union[PathLike, "SpatialFile"], *, pixels: bool = True, layout: Optional[str] = None,
             frames: Optional[int] = None, progress: Optional[ProgressCallback] = None,
             cancel: Optional[CancelToken] = None, right_eye: Optional[PathLike] = None, hfov: Optional[float] = None,
             disparity: Optional[float] = None, baseline: Optional[float] = None) -> ValidationReport:
    """Checks a file against the spatial-media rules, exactly as ``spatial-media validate --json FILE``:
    metadata rules and, with ``pixels``, stereo geometry measured on decoded frames. Finding problems is
    not an exception: look at ``report.exit_code``, ``report.errors``; an unreadable file gives kind
    "unreadable" and exit code 2. ``layout`` ("sbs"/"tb") for frame-packed input, ``frames`` (1…1000)
    video frames measured. ``right_eye``: ``path`` is the left image and this the right one of a pair
    (``validate --left PATH --right RIGHT``). ``hfov`` (degrees), ``disparity`` (% of the width), ``baseline``
    (mm): a raw pair (two images, SBS/TB image, MPO) is judged at these (``validate --hfov --disparity
    --baseline``); the field of view defaults to the input's EXIF, else 60°."""
    from ._file import SpatialFile
    if isinstance(path, SpatialFile):
        if right_eye is not None:
            raise invalid_argument("right_eye needs a path for the left eye, not an open file")
        return path.validate(pixels=pixels, layout=layout, frames=frames, progress=progress, cancel=cancel)
    p = _Progress(progress)
    opts = _validation_options(pixels, layout, frames, hfov, disparity, baseline)
    if right_eye is not None:
        fields = json.loads(opts) if opts else {}
        fields["right_eye"] = os.fsdecode(os.fspath(right_eye))
        opts = json.dumps(fields).encode()
    raw = _call_report("sm_validate_path", [_fspath(path), opts, p.fn, None, cancel._ref() if cancel else None], p)
    return ValidationReport.from_json(raw)


def validation_inputs(paths: Iterable[PathLike]) -> ValidationInputs:
    """Expands files and directories exactly as the command line's ``validate`` does (recursively, hidden
    names skipped, non-media files skipped, ``NAME_L``/``NAME_R`` images paired). Validate each file with
    ``validate(f)`` and each pair with ``validate(left, right_eye=right)`` for the command line's verdicts."""
    names = [os.fsdecode(os.fspath(p)) for p in paths]
    raw = _call_report("sm_validation_inputs", [json.dumps(names).encode()])
    return ValidationInputs(files=list(raw.get("files", [])),
                            pairs=[(p["left"], p["right"]) for p in raw.get("pairs", [])],
                            skipped=list(raw.get("skipped", [])),
                            directories_without_media=list(raw.get("directories_without_media", [])))
