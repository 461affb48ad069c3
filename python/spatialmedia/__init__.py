"""spatialmedia — read, validate, convert and edit Apple spatial media from Python.

Spatial videos (MV-HEVC with ``vexu``/``hfov`` metadata) and spatial photos (stereo HEIC with a ``ster``
group) through libspatialmedia's C ABI. The wheel carries the library with the Swift runtime linked in;
the codec libraries (libde265, libx265, libturbojpeg, libpng) are opened when first needed.

    import spatialmedia
    with spatialmedia.open("photo.heic") as f:
        print(f.stereo.baseline_um, f.stereo.baseline_mm)         # 63774.0 63.774
    report = spatialmedia.validate("movie.mov")
    print(report.exit_code, [x.rule for x in report.errors])
    spatialmedia.edit("movie.mov", "out.mov", baseline_mm=64, hfov_degrees=71.5)
    spatialmedia.convert("sbs.mp4", "spatial.mov", layout="sbs", crf=20,
                         progress=lambda fraction, stage: print(stage, fraction))

Stereo parameters are given and returned in Apple's stored units — baseline in micrometres (µm), field of
view in millidegrees, disparity adjustment in 1/10000 of the image width — with mm / ° / % views. Every
value is checked by the library (the same checks as the command line's) before anything is written. Errors raise ``SpatialMediaError``
subclasses carrying the status code, the file offset and the box path. Native calls release the GIL;
long operations take a ``progress(fraction, stage)`` callback (return True to cancel) and a
``CancelToken``.
"""
from __future__ import annotations

from . import _native
from ._convert import align, concat, convert, fix, option_table, split
from ._core import CancelToken, PathLike, ProgressCallback, _lib
from ._edit import combine_photo, edit
from ._errors import (
    CancelledError, FileAccessError, InternalError, InvalidArgumentError, InvalidHandleError, InvalidOptionError, LimitError,
    NotApplicableError, NotFoundError, OutOfMemoryError, ParseError, SpatialMediaError, UnsupportedError,
)
from ._file import SpatialFile, info, open
from ._types import (
    ConcatReport, ConvertReport, EditReport, Finding, Kind, PhotoEyes, SplitReport, Status, StereoParameters,
    ValidationInputs, ValidationReport, VideoClass,
)
from ._validate import validate, validation_inputs

__all__ = [
    "open", "info", "SpatialFile", "Kind", "VideoClass", "Status", "StereoParameters", "PhotoEyes", "EditReport",
    "ConvertReport", "ConcatReport", "SplitReport", "Finding", "ValidationReport", "CancelToken", "edit", "convert", "concat", "split", "align", "fix",
    "validate", "validation_inputs", "ValidationInputs", "combine_photo", "version", "abi_version", "capabilities", "library_path", "option_table",
    "SpatialMediaError", "InvalidArgumentError", "InvalidOptionError", "InvalidHandleError", "FileAccessError", "ParseError",
    "NotFoundError", "NotApplicableError", "UnsupportedError", "CancelledError", "LimitError",
    "OutOfMemoryError", "InternalError",
]

__version__ = "0.2.0"

_CAPABILITIES = {"info": 1, "edit_video": 2, "edit_photo": 4, "combine_photo": 8, "validate": 16,
                 "convert_photo": 32, "convert_video": 64, "split": 128, "align_photo": 256, "fix_video": 512}


def version() -> str:
    """The library's version, e.g. "0.2.0"."""
    return str(_lib().sm_version().decode())


def abi_version() -> int:
    """The ABI version of the loaded library (1)."""
    return int(_lib().sm_abi_version())


def capabilities() -> frozenset[str]:
    """The names of the operations this build provides."""
    bits = _lib().sm_capabilities()
    return frozenset(name for name, bit in _CAPABILITIES.items() if bits & bit)


def library_path() -> str:
    """Where the loaded libspatialmedia is."""
    return _native.library_path()
