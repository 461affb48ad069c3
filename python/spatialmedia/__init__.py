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
integer is range-checked before it reaches a 32-bit C field. Errors raise ``SpatialMediaError``
subclasses carrying the status code, the file offset and the box path. Native calls release the GIL;
long operations take a ``progress(fraction, stage)`` callback (return True to cancel) and a
``CancelToken``.
"""
from __future__ import annotations

import ctypes
import enum
import json
import numbers
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _native
from ._errors import (
    CancelledError, FileAccessError, InternalError, InvalidArgumentError, InvalidHandleError, LimitError,
    NotApplicableError, NotFoundError, OutOfMemoryError, ParseError, SpatialMediaError, UnsupportedError,
    error_from_last, invalid_argument,
)

__all__ = [
    "open", "SpatialFile", "Kind", "VideoClass", "Status", "StereoParameters", "PhotoEyes", "EditReport",
    "ConvertReport", "ConcatReport", "SplitReport", "Finding", "ValidationReport", "CancelToken", "edit", "convert", "concat", "split",
    "validate", "validation_inputs", "ValidationInputs", "combine_photo", "version", "abi_version", "capabilities", "library_path",
    "SpatialMediaError", "InvalidArgumentError", "InvalidHandleError", "FileAccessError", "ParseError",
    "NotFoundError", "NotApplicableError", "UnsupportedError", "CancelledError", "LimitError",
    "OutOfMemoryError", "InternalError",
]

__version__ = "0.2.0"

PathLike = Union[str, "os.PathLike[str]"]
ProgressCallback = Callable[[float, str], Optional[bool]]

UINT32_MAX = 0xFFFF_FFFF
HFOV_RANGE = (1, 179_999)          # millidegrees (the C ABI's range)
DISPARITY_RANGE = (-10_000, 10_000)  # 1/10000 of the width


class Status(enum.IntEnum):
    """Status codes of the C ABI (``sm_status``)."""
    OK = 0
    INVALID_ARGUMENT = 1
    INVALID_HANDLE = 2
    IO = 3
    PARSE = 4
    NOT_FOUND = 5
    NOT_APPLICABLE = 6
    UNSUPPORTED = 7
    CANCELLED = 8
    LIMIT = 9
    NO_MEMORY = 10
    INTERNAL = 11


class Kind(str, enum.Enum):
    """What a file is (``sm_file_kind``)."""
    OTHER = "other"
    MOVIE = "movie"
    IMAGE = "image"
    HEVC_STREAM = "hevc-stream"


_KINDS = {0: Kind.OTHER, 1: Kind.MOVIE, 2: Kind.IMAGE, 3: Kind.HEVC_STREAM}


class VideoClass(str, enum.Enum):
    """How a movie carries stereo (``sm_video_classification``)."""
    NO_VIDEO = "no-video"
    MONO = "2d"
    SPATIAL = "spatial-video"
    STEREO_WITHOUT_METADATA = "stereo-mv-hevc-without-spatial-metadata"
    SIDE_BY_SIDE = "frame-packed-side-by-side"
    TOP_BOTTOM = "frame-packed-top-bottom"


_CAPABILITIES = {"info": 1, "edit_video": 2, "edit_photo": 4, "combine_photo": 8, "validate": 16,
                 "convert_photo": 32, "convert_video": 64, "split": 128}
_FIELDS = {"baseline": 1, "hfov": 2, "disparity": 3, "hero_eye": 4, "projection": 5}
_PHOTO_FORMS = {"apple": 0, "standard": 1, "both": 2}
_HERO_EYES = {"none": 0, "left": 1, "right": 2}
_HERO_NAMES = {v: k for k, v in _HERO_EYES.items()}
_PHOTO_EXTENSIONS = (".heic", ".heif", ".hif")


# ---------------------------------------------------------------------------------------------------
# Calls and checks

def _lib() -> ctypes.CDLL:
    return _native.load()


def _check(status: int, function: str) -> None:
    if status != _native.OK:
        raise error_from_last(status, function)


def _fspath(p: Optional[PathLike]) -> Optional[bytes]:
    return None if p is None else os.fsencode(os.fspath(p))


def _take_string(ptr: ctypes.c_void_p) -> Optional[str]:
    """Copies and frees a library-allocated string."""
    if not ptr.value:
        return None
    try:
        return ctypes.string_at(ptr.value).decode("utf-8")
    finally:
        _lib().sm_string_free(ptr)


def _integer(name: str, value: Any, low: int, high: int, unit: str = "") -> int:
    """`value` as an int in low…high; anything else (bool, float, out of range) raises InvalidArgumentError
    before it can be narrowed into a C field."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise invalid_argument(f"{name} must be an integer{(' in ' + unit) if unit else ''} (got {value!r})")
    v = int(value)
    if not low <= v <= high:
        raise invalid_argument(f"{name} must be {low}…{high}{(' ' + unit) if unit else ''} (got {v})")
    return v


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise invalid_argument(f"{name} must be a number (got {value!r})")
    v = float(value)
    if v != v or v in (float("inf"), float("-inf")):
        raise invalid_argument(f"{name} must be finite (got {v})")
    return v


def _one_of(stored_name: str, stored: Any, human_name: str, human: Any) -> None:
    if stored is not None and human is not None:
        raise invalid_argument(f"give {stored_name} or {human_name}, not both")


def _stored(stored_name: str, stored: Any, human_name: str, human: Any, scale: float, low: int, high: int,
            unit: str) -> Optional[int]:
    """A stored-unit integer from either its stored form or its human form (human × scale, rounded)."""
    _one_of(stored_name, stored, human_name, human)
    if human is not None:
        h = _number(human_name, human)
        scaled = round(h * scale)
        if not low <= scaled <= high:
            raise invalid_argument(f"{human_name} must be {low / scale:g}…{high / scale:g} (got {h:g})")
        return scaled
    if stored is not None:
        return _integer(stored_name, stored, low, high, unit)
    return None


# ---------------------------------------------------------------------------------------------------
# Library

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


# ---------------------------------------------------------------------------------------------------
# Data

@dataclass(frozen=True)
class StereoParameters:
    """Stereo parameters in Apple's stored units, with human views.

    For videos these are the stored integers (``vexu``/``hfov``); for photos they are computed from the
    camera intrinsics and extrinsics, so baseline and field of view are floats. A value the file does
    not carry is None.
    """
    baseline_um: Optional[Union[int, float]]
    """Distance between the camera centres in micrometres (``blin``; photos: between the positions)."""
    hfov_millidegrees: Optional[Union[int, float]]
    """Horizontal field of view in 1/1000 degree (``hfov``; photos: 2·atan(W / 2 fx))."""
    disparity: Optional[int]
    """Horizontal disparity adjustment in 1/10000 of the image width (``dadj``)."""
    hero_eye: Optional[str] = None
    """Videos: "left", "right", "none" or a reserved number as text; None without a ``hero`` box."""

    @property
    def baseline_mm(self) -> Optional[float]:
        return None if self.baseline_um is None else self.baseline_um / 1000

    @property
    def hfov_degrees(self) -> Optional[float]:
        return None if self.hfov_millidegrees is None else self.hfov_millidegrees / 1000

    @property
    def disparity_percent(self) -> Optional[float]:
        """Disparity adjustment in percent of the image width."""
        return None if self.disparity is None else self.disparity / 100


@dataclass(frozen=True)
class PhotoEyes:
    """The two images of a spatial photo's ``ster`` group."""
    left_item: int
    right_item: int
    width: int
    height: int


@dataclass(frozen=True)
class EditReport:
    """What an edit did (``sm_edit_video`` / ``sm_edit_photo`` report)."""
    output: str
    changes: list[str]
    warnings: list[str]
    strategy: Optional[str]
    """Videos: "in-place" or "rewrite"; photos: None."""
    bytes_written: Optional[int]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class ConvertReport:
    """What a conversion wrote."""
    output: str
    kind: str
    """"photo" or "video"."""
    bytes_written: Optional[int]
    frames: Optional[int]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class ConcatReport:
    """What ``concat`` wrote."""
    output: str
    bytes_written: int
    frames: int
    segments: int
    audio: list[str]
    seconds: float
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class SplitReport:
    input: str
    left_output: str
    right_output: str
    sbs_output: Optional[str]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class Finding:
    """One rule's finding (see Specs/validation.md for every rule id)."""
    rule: str
    severity: str
    """"error", "warning" or "info"."""
    message: str
    title: str = ""
    source: str = ""
    location: str = ""


@dataclass(frozen=True)
class ValidationReport:
    """The report of ``spatial-media validate --json`` for one file."""
    file: str
    kind: str
    spatial: bool
    why_not_spatial: list[str]
    exit_code: int
    """0 no errors or warnings, 1 warnings or errors found, 2 the input could not be read."""
    findings: list[Finding]
    worst: Optional[str] = None
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ValidationReport":
        findings = [Finding(rule=str(f.get("rule", "")), severity=str(f.get("severity", "")),
                            message=str(f.get("message", "")), title=str(f.get("title", "")),
                            source=str(f.get("source", "")), location=str(f.get("location", "")))
                    for f in obj.get("findings", [])]
        return cls(file=str(obj.get("file", "")), kind=str(obj.get("kind", "")), spatial=bool(obj.get("spatial")),
                   why_not_spatial=list(obj.get("why_not_spatial", [])), exit_code=int(obj.get("exit_code", 0)),
                   findings=findings, worst=obj.get("worst"), raw=dict(obj))


# ---------------------------------------------------------------------------------------------------
# Progress and cancellation

class CancelToken:
    """A flag another thread may set to stop a long operation (``cancel`` of the C ABI). The operation
    then raises CancelledError and writes nothing."""

    def __init__(self) -> None:
        self._flag = ctypes.c_int32(0)

    def cancel(self) -> None:
        self._flag.value = 1

    @property
    def cancelled(self) -> bool:
        return self._flag.value != 0

    def _ref(self) -> Any:
        return ctypes.byref(self._flag)


class _Progress:
    """Wraps a Python progress callback as an sm_progress_fn. An exception in the callback cancels the
    native operation and is re-raised when it returns."""

    def __init__(self, callback: Optional[ProgressCallback]):
        self.error: Optional[BaseException] = None
        self.callback = callback
        if callback is None:
            self.fn = _native.PROGRESS()
            return

        def trampoline(_user: Any, fraction: float, stage: Optional[bytes]) -> int:
            try:
                return 1 if callback(float(fraction), (stage or b"").decode("utf-8", "replace")) else 0
            except BaseException as e:  # noqa: BLE001 — handed back to the caller below
                self.error = e
                return 1
        self.fn = _native.PROGRESS(trampoline)

    def reraise(self) -> None:
        if self.error is not None:
            raise self.error


def _call_report(function: str, args: Sequence[Any], progress: Optional[_Progress] = None) -> dict[str, Any]:
    out = ctypes.c_void_p()
    status = getattr(_lib(), function)(*args, ctypes.byref(out))
    if progress is not None:
        progress.reraise()
    _check(status, function)
    text = _take_string(out)
    return json.loads(text) if text else {}


def _options_json(options: Mapping[str, Any]) -> Optional[bytes]:
    clean = {k: v for k, v in options.items() if v is not None}
    return json.dumps(clean).encode() if clean else None


# ---------------------------------------------------------------------------------------------------
# Files

class SpatialFile:
    """An open file (``sm_file``): its kind, spatial metadata and info. Immutable after opening; safe to
    use from several threads. Use as a context manager or call close()."""

    def __init__(self, path: Optional[PathLike] = None, data: Optional[bytes] = None):
        if (path is None) == (data is None):
            raise ValueError("give a path or data, not both")
        lib = _lib()
        handle = ctypes.c_void_p()
        if path is not None:
            _check(lib.sm_file_open(_fspath(path), ctypes.byref(handle)), "sm_file_open")
        else:
            raw = bytes(data or b"")
            buf = ctypes.create_string_buffer(raw, len(raw)) if raw else None
            _check(lib.sm_file_open_memory(buf, len(raw), ctypes.byref(handle)), "sm_file_open_memory")
        self._handle: Optional[ctypes.c_void_p] = handle
        self.path: Optional[str] = os.fspath(path) if path is not None else None

    @classmethod
    def from_bytes(cls, data: bytes) -> "SpatialFile":
        return cls(data=data)

    def close(self) -> None:
        if self._handle is not None:
            h, self._handle = self._handle, None
            _check(_lib().sm_file_free(h), "sm_file_free")

    def __enter__(self) -> "SpatialFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass

    def __repr__(self) -> str:
        return f"<SpatialFile {self.path or '(memory)'}{' closed' if self._handle is None else ''}>"

    @property
    def handle(self) -> Optional[ctypes.c_void_p]:
        """The raw ``sm_file *`` (None after close())."""
        return self._handle

    def _live(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise InvalidHandleError(_native.INVALID_HANDLE, "the file is closed", "SpatialFile")
        return self._handle

    def _get(self, function: str, ctype: Any) -> Any:
        v = ctype()
        status = getattr(_lib(), function)(self._live(), ctypes.byref(v))
        if status == _native.NOT_FOUND:
            return None
        _check(status, function)
        return v.value

    def _pair(self, function: str) -> Optional[tuple[int, int]]:
        a, b = ctypes.c_uint32(), ctypes.c_uint32()
        status = getattr(_lib(), function)(self._live(), ctypes.byref(a), ctypes.byref(b))
        if status == _native.NOT_FOUND:
            return None
        _check(status, function)
        return int(a.value), int(b.value)

    @property
    def kind(self) -> Kind:
        return _KINDS.get(self._get("sm_file_kind", ctypes.c_int32), Kind.OTHER)

    @property
    def is_spatial(self) -> bool:
        """A spatial photo (readable stereo pair) or a spatial video (MV-HEVC with spatial metadata)."""
        return bool(self._get("sm_file_is_spatial", ctypes.c_int32))

    def info_json(self, pretty: bool = False) -> str:
        """``spatial-media info --json`` as text."""
        out = ctypes.c_void_p()
        n = ctypes.c_size_t()
        _check(_lib().sm_file_info_json(self._live(), 1 if pretty else 0, ctypes.byref(out), ctypes.byref(n)),
               "sm_file_info_json")
        return _take_string(out) or ""

    def info(self) -> dict[str, Any]:
        """``spatial-media info --json`` as a dict (schema: Specs/schemas/info.v1.schema.json)."""
        result: dict[str, Any] = json.loads(self.info_json())
        return result

    def serialize(self) -> bytes:
        """The file written back through the library's box writer (identical bytes when unchanged)."""
        out = ctypes.c_void_p()
        n = ctypes.c_size_t()
        _check(_lib().sm_file_serialize(self._live(), ctypes.byref(out), ctypes.byref(n)), "sm_file_serialize")
        try:
            return ctypes.string_at(out.value or 0, n.value)
        finally:
            _lib().sm_buffer_free(out)

    # Video
    @property
    def video_class(self) -> Optional[VideoClass]:
        """How the primary video track carries stereo; None when the file is not a movie."""
        c = self._get("sm_video_classification", ctypes.c_int32)
        if c is None:
            return None
        name = _lib().sm_video_classification_name(c).decode()
        try:
            return VideoClass(name)
        except ValueError:
            return None

    def video_stereo(self) -> Optional[StereoParameters]:
        """The primary video track's stored parameters; None when the file is not a movie with video."""
        if self.kind != Kind.MOVIE:
            return None
        hero = self._get("sm_video_hero_eye", ctypes.c_int32)
        return StereoParameters(
            baseline_um=self._get("sm_video_baseline_um", ctypes.c_uint32),
            hfov_millidegrees=self._get("sm_video_hfov_millidegrees", ctypes.c_uint32),
            disparity=self._get("sm_video_disparity", ctypes.c_int32),
            hero_eye=None if hero is None else _HERO_NAMES.get(hero, str(hero)))

    # Photo
    @property
    def photo_eyes(self) -> Optional[PhotoEyes]:
        """The stereo pair of a spatial photo; None when the file has no usable ``ster`` group."""
        items = self._pair("sm_photo_eye_items")
        size = self._pair("sm_photo_size")
        if items is None or size is None:
            return None
        return PhotoEyes(items[0], items[1], size[0], size[1])

    def photo_stereo(self) -> Optional[StereoParameters]:
        """A spatial photo's parameters from its camera properties; None when it is not a spatial photo."""
        if self.kind != Kind.IMAGE or self._pair("sm_photo_eye_items") is None:
            return None
        return StereoParameters(
            baseline_um=self._get("sm_photo_baseline_um", ctypes.c_double),
            hfov_millidegrees=self._get("sm_photo_hfov_millidegrees", ctypes.c_double),
            disparity=self._get("sm_photo_disparity", ctypes.c_int32))

    @property
    def stereo(self) -> Optional[StereoParameters]:
        """``photo_stereo()`` for images, ``video_stereo()`` for movies, else None."""
        kind = self.kind
        if kind == Kind.IMAGE:
            return self.photo_stereo()
        if kind == Kind.MOVIE:
            return self.video_stereo()
        return None

    def validate(self, *, pixels: bool = True, layout: Optional[str] = None, frames: Optional[int] = None,
                 progress: Optional[ProgressCallback] = None, cancel: Optional[CancelToken] = None) -> ValidationReport:
        """Validates this open file (``sm_validate``); see ``spatialmedia.validate``."""
        p = _Progress(progress)
        opts = _validation_options(pixels, layout, frames)
        raw = _call_report("sm_validate", [self._live(), opts, p.fn, None, cancel._ref() if cancel else None], p)
        return ValidationReport.from_json(raw)


def open(path: PathLike) -> SpatialFile:  # noqa: A001 — the package's entry point, like builtins.open
    """Opens and parses a file (only metadata is read; sample data stays on disk)."""
    return SpatialFile(path)


# ---------------------------------------------------------------------------------------------------
# Edits

class _Edit:
    """An ``sm_edit`` built from checked values (stored units)."""

    def __init__(self, baseline_um: Optional[int] = None, hfov_millidegrees: Optional[int] = None,
                 disparity: Optional[int] = None, hero_eye: Union[str, int, None] = None, projection: Optional[str] = None,
                 remove: Iterable[str] = (), remove_spatial: bool = False, photo_form: Optional[str] = None):
        lib = _lib()
        h = ctypes.c_void_p()
        # Every value is checked before the handle exists, so nothing is half-built on an error.
        checked: list[tuple[str, Any]] = []
        if baseline_um is not None:
            checked.append(("sm_edit_set_baseline_um", _integer("baseline_um", baseline_um, 0, UINT32_MAX, "µm")))
        if hfov_millidegrees is not None:
            checked.append(("sm_edit_set_hfov_millidegrees",
                            _integer("hfov_millidegrees", hfov_millidegrees, *HFOV_RANGE, "millidegrees")))
        if disparity is not None:
            checked.append(("sm_edit_set_disparity",
                            _integer("disparity", disparity, *DISPARITY_RANGE, "(1/10000 of the width)")))
        if hero_eye is not None:
            if isinstance(hero_eye, str):
                if hero_eye not in _HERO_EYES:
                    raise invalid_argument(f"hero_eye must be none, left or right (got {hero_eye!r})")
                eye = _HERO_EYES[hero_eye]
            else:
                eye = _integer("hero_eye", hero_eye, 0, 255)
            checked.append(("sm_edit_set_hero_eye", eye))
        if projection is not None:
            if not isinstance(projection, str):
                raise invalid_argument(f"projection must be a four-character code such as 'rect' (got {projection!r})")
            checked.append(("sm_edit_set_projection", projection.encode("utf-8")))
        for name in remove:
            if name not in _FIELDS:
                raise invalid_argument(f"remove: unknown field {name!r} (use {', '.join(_FIELDS)})")
            checked.append(("sm_edit_remove_field", _FIELDS[name]))
        if remove_spatial:
            checked.append(("sm_edit_set_remove_spatial", 1))
        if photo_form is not None:
            if photo_form not in _PHOTO_FORMS:
                raise invalid_argument(f"photo_form must be apple, standard or both (got {photo_form!r})")
            checked.append(("sm_edit_set_photo_form", _PHOTO_FORMS[photo_form]))
        _check(lib.sm_edit_create(ctypes.byref(h)), "sm_edit_create")
        self.handle: Optional[ctypes.c_void_p] = h
        try:
            for function, value in checked:
                _check(getattr(lib, function)(h, value), function)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.handle is not None:
            h, self.handle = self.handle, None
            _check(_lib().sm_edit_free(h), "sm_edit_free")

    def __enter__(self) -> "_Edit":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _edit_report(raw: dict[str, Any]) -> EditReport:
    return EditReport(output=str(raw.get("output", "")), changes=list(raw.get("changes", [])),
                      warnings=list(raw.get("warnings", [])), strategy=raw.get("strategy"),
                      bytes_written=raw.get("bytes_written"), raw=raw)


@dataclass(frozen=True)
class _Fields:
    """Stereo values in stored units, checked."""
    baseline_um: Optional[int]
    hfov_millidegrees: Optional[int]
    disparity: Optional[int]


def _edit_fields(baseline_um: Any, baseline_mm: Any, hfov_millidegrees: Any, hfov_degrees: Any, disparity: Any,
                 disparity_percent: Any) -> _Fields:
    return _Fields(
        baseline_um=_stored("baseline_um", baseline_um, "baseline_mm", baseline_mm, 1000, 0, UINT32_MAX, "µm"),
        hfov_millidegrees=_stored("hfov_millidegrees", hfov_millidegrees, "hfov_degrees", hfov_degrees, 1000,
                                  *HFOV_RANGE, "millidegrees"),
        disparity=_stored("disparity", disparity, "disparity_percent", disparity_percent, 100, *DISPARITY_RANGE,
                          "(1/10000 of the width)"))


def edit(path: PathLike, output: Optional[PathLike] = None, *, baseline_um: Optional[int] = None,
         baseline_mm: Optional[float] = None, hfov_millidegrees: Optional[int] = None, hfov_degrees: Optional[float] = None,
         disparity: Optional[int] = None, disparity_percent: Optional[float] = None, hero_eye: Union[str, int, None] = None,
         projection: Optional[str] = None, remove: Iterable[str] = (), remove_spatial: bool = False,
         photo_form: Optional[str] = None, faststart: bool = False) -> EditReport:
    """Changes the stereo metadata of a spatial video or photo without touching sample data.

    ``output`` None edits in place (atomically). Values in stored units (``baseline_um``,
    ``hfov_millidegrees``, ``disparity``) or human units (``baseline_mm``, ``hfov_degrees``,
    ``disparity_percent``), not both for one field. Videos also take ``hero_eye``, ``projection``,
    ``remove`` (field names) and ``remove_spatial``; photos ``photo_form``. Out-of-range values raise
    InvalidArgumentError before anything is written.
    """
    fields = _edit_fields(baseline_um, baseline_mm, hfov_millidegrees, hfov_degrees, disparity, disparity_percent)
    with _Edit(fields.baseline_um, fields.hfov_millidegrees, fields.disparity, hero_eye=hero_eye, projection=projection, remove=remove, remove_spatial=remove_spatial,
               photo_form=photo_form) as e:
        raw = _call_report("sm_edit_apply", [_fspath(path), _fspath(output), e.handle, 1 if faststart else 0])
    return _edit_report(raw)


def combine_photo(left: PathLike, right: Optional[PathLike], output: PathLike, *, left_item: int = 0,
                  right_item: int = 0, swap_eyes: bool = False, baseline_um: Optional[int] = None,
                  baseline_mm: Optional[float] = None, hfov_millidegrees: Optional[int] = None,
                  hfov_degrees: Optional[float] = None, disparity: Optional[int] = None,
                  disparity_percent: Optional[float] = None, photo_form: Optional[str] = None) -> EditReport:
    """Makes a spatial photo without re-encoding from two HEIF files, or from two images of one file
    (``right`` None; ``left_item``/``right_item`` name them, 0 and 0 = the two displayable images)."""
    fields = _edit_fields(baseline_um, baseline_mm, hfov_millidegrees, hfov_degrees, disparity, disparity_percent)
    li = _integer("left_item", left_item, 0, UINT32_MAX)
    ri = _integer("right_item", right_item, 0, UINT32_MAX)
    with _Edit(fields.baseline_um, fields.hfov_millidegrees, fields.disparity, photo_form=photo_form) as e:
        raw = _call_report("sm_combine_photo", [_fspath(left), _fspath(right), li, ri, 1 if swap_eyes else 0,
                                                e.handle, _fspath(output)])
    return _edit_report(raw)


# ---------------------------------------------------------------------------------------------------
# Long operations

def _validation_options(pixels: bool, layout: Optional[str], frames: Optional[int]) -> Optional[bytes]:
    if layout is not None and layout not in ("sbs", "tb"):
        raise invalid_argument(f"layout must be sbs or tb (got {layout!r})")
    return _options_json({"pixels": bool(pixels), "layout": layout,
                          "frames": None if frames is None else _integer("frames", frames, 1, 100)})


def validate(path: Union[PathLike, SpatialFile], *, pixels: bool = True, layout: Optional[str] = None,
             frames: Optional[int] = None, progress: Optional[ProgressCallback] = None,
             cancel: Optional[CancelToken] = None, right_eye: Optional[PathLike] = None) -> ValidationReport:
    """Checks a file against the spatial-media rules, exactly as ``spatial-media validate --json FILE``:
    metadata rules and, with ``pixels``, stereo geometry measured on decoded frames. Finding problems is
    not an exception: look at ``report.exit_code``, ``report.errors``; an unreadable file gives kind
    "unreadable" and exit code 2. ``layout`` ("sbs"/"tb") for frame-packed input, ``frames`` (1…100)
    video frames measured. ``right_eye``: ``path`` is the left image and this the right one of a pair
    (``validate --left PATH --right RIGHT``)."""
    if isinstance(path, SpatialFile):
        if right_eye is not None:
            raise invalid_argument("right_eye needs a path for the left eye, not an open file")
        return path.validate(pixels=pixels, layout=layout, frames=frames, progress=progress, cancel=cancel)
    p = _Progress(progress)
    opts = _validation_options(pixels, layout, frames)
    if right_eye is not None:
        fields = json.loads(opts) if opts else {}
        fields["right_eye"] = os.fsdecode(os.fspath(right_eye))
        opts = json.dumps(fields).encode()
    raw = _call_report("sm_validate_path", [_fspath(path), opts, p.fn, None, cancel._ref() if cancel else None], p)
    return ValidationReport.from_json(raw)


@dataclass(frozen=True)
class ValidationInputs:
    """What ``spatial-media validate ARGS…`` checks for some paths (``sm_validation_inputs``): the files one by
    one, ``NAME_L``/``NAME_R`` image pairs found in directories, files skipped as not media, and directories
    that held no media."""
    files: list[str]
    pairs: list[tuple[str, str]]
    skipped: list[str]
    directories_without_media: list[str]


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


def _is_photo_output(output: PathLike) -> bool:
    return os.fspath(output).lower().endswith(_PHOTO_EXTENSIONS)


def convert(input: PathLike, output: PathLike, *, right_input: Optional[PathLike] = None, layout: Optional[str] = None,
            baseline_um: Optional[int] = None, baseline_mm: Optional[float] = None,
            hfov_millidegrees: Optional[int] = None, hfov_degrees: Optional[float] = None,
            disparity: Optional[int] = None, disparity_percent: Optional[float] = None,
            hero_eye: Optional[str] = None, quality: Optional[int] = None, crf: Optional[int] = None,
            preset: Optional[str] = None, container: Optional[str] = None, faststart: Optional[bool] = None,
            audio: Optional[str] = None, half_resolution: Optional[bool] = None, swap_eyes: Optional[bool] = None,
            photo_form: Optional[str] = None, bit_depth: Optional[int] = None, threads: Optional[int] = None,
            base_eye: Optional[str] = None, frame_rate: Optional[tuple[int, int]] = None,
            eye_quality: Optional[str] = None, encode_path: Optional[str] = None, qp: Optional[int] = None,
            keyint: Optional[int] = None,
            bframes: Optional[int] = None, segment: Optional[tuple[int, int]] = None,
            progress: Optional[ProgressCallback] = None, cancel: Optional[CancelToken] = None) -> ConvertReport:
    """Converts a stereo source into a spatial photo (``output`` ending in .heic/.heif) or a spatial video.

    Photos: ``input`` is one side-by-side/top-bottom image (JPEG, PNG, HEIC) or an MPO, or the left eye
    with ``right_input``; options ``layout`` (sbs/tb/auto), ``half_resolution``, ``swap_eyes``,
    ``quality`` (0…100), ``photo_form``, ``bit_depth`` (8/10), ``threads``.
    Videos: a frame-packed video (``layout`` sbs/tb/half-sbs/half-tb), two video files, or two raw HEVC
    streams (assembled without re-encoding); options ``crf`` (0…51, the base-layer eye's) or ``qp`` (0…51,
    constant quantizer), ``eye_quality`` ("asymmetric" (default: the other eye 6 CRF steps coarser),
    "asymmetric:N", "equal"), ``encode_path`` ("auto": a multiview libx265 when one is found, "assembled",
    "multiview"), ``preset``, ``keyint`` (IDR interval in frames), ``bframes`` (0…16), ``audio``
    (copy/none), ``container`` (mov/mp4), ``faststart``, ``hero_eye``, ``base_eye``, ``frame_rate``,
    ``segment=(k, n)`` (encode only segment k of n, 1-based: whole GOPs, no audio; join the n files with ``concat``).
    Stereo parameters in stored or human units as for ``edit``. ``progress(fraction, stage)`` returning
    True, or ``cancel.cancel()``, stops the work: CancelledError, and no output is written.
    """
    fields = _edit_fields(baseline_um, baseline_mm, hfov_millidegrees, hfov_degrees, disparity, disparity_percent)
    opts: dict[str, Any] = {"right_input": None if right_input is None else os.fspath(right_input), "layout": layout}
    photo = _is_photo_output(output)
    if photo:
        for name, value in (("crf", crf), ("qp", qp), ("keyint", keyint), ("bframes", bframes), ("segment", segment),
                            ("preset", preset), ("container", container), ("faststart", faststart),
                            ("audio", audio), ("hero_eye", hero_eye), ("base_eye", base_eye), ("frame_rate", frame_rate),
                            ("eye_quality", eye_quality), ("encode_path", encode_path)):
            if value is not None:
                raise invalid_argument(f"{name} applies to video conversion only (the output {os.fspath(output)!r} is a photo)")
        if fields.baseline_um is not None and fields.baseline_um > 0x7FFF_FFFF:
            raise invalid_argument(f"a photo baseline must be at most 2147483647 µm (got {fields.baseline_um})")
        if fields.baseline_um == 0:
            raise invalid_argument("a photo baseline must be above 0")
        opts.update({
            "baseline_mm": None if fields.baseline_um is None else fields.baseline_um / 1000,
            "hfov_degrees": None if fields.hfov_millidegrees is None else fields.hfov_millidegrees / 1000,
            "disparity_percent": None if fields.disparity is None else fields.disparity / 100,
            "quality": None if quality is None else _integer("quality", quality, 0, 100),
            "half_resolution": half_resolution, "swap_eyes": swap_eyes, "form": photo_form,
            "bit_depth": None if bit_depth is None else _integer("bit_depth", bit_depth, 8, 10),
            "threads": None if threads is None else _integer("threads", threads, 0, 256),
        })
        function = "sm_convert_photo"
    else:
        for name, value in (("quality", quality), ("half_resolution", half_resolution), ("swap_eyes", swap_eyes),
                            ("photo_form", photo_form), ("bit_depth", bit_depth), ("threads", threads)):
            if value is not None:
                raise invalid_argument(f"{name} applies to photo conversion only (the output {os.fspath(output)!r} is a video)")
        if hero_eye is not None and hero_eye not in _HERO_EYES:
            raise invalid_argument(f"hero_eye must be none, left or right (got {hero_eye!r})")
        num = den = None
        if frame_rate is not None:
            if not isinstance(frame_rate, (tuple, list)) or len(frame_rate) != 2:
                raise invalid_argument(f"frame_rate must be (numerator, denominator), e.g. (30000, 1001) (got {frame_rate!r})")
            num = _integer("frame_rate numerator", frame_rate[0], 1, 1_000_000)
            den = _integer("frame_rate denominator", frame_rate[1], 1, 1_000_000)
        segment_text = None
        if segment is not None:
            if not isinstance(segment, (tuple, list)) or len(segment) != 2:
                raise invalid_argument(f"segment must be (k, n) with 1 <= k <= n, e.g. (2, 4) (got {segment!r})")
            n = _integer("segment count", segment[1], 1, 100_000)
            k = _integer("segment index", segment[0], 1, n)
            segment_text = f"{k}/{n}"
        opts.update({
            "baseline_um": fields.baseline_um, "hfov_millidegrees": fields.hfov_millidegrees,
            "disparity": fields.disparity, "hero_eye": hero_eye, "base_eye": base_eye,
            "crf": None if crf is None else _integer("crf", crf, 0, 51), "preset": preset, "audio": audio,
            "container": container, "faststart": faststart, "frame_rate_num": num, "frame_rate_den": den,
            "qp": None if qp is None else _integer("qp", qp, 0, 51),
            "keyint": None if keyint is None else _integer("keyint", keyint, 1, 100_000),
            "bframes": None if bframes is None else _integer("bframes", bframes, 0, 16), "segment": segment_text,
            "eye_quality": eye_quality, "encode_path": encode_path,
        })
        function = "sm_convert_video"
    p = _Progress(progress)
    raw = _call_report(function, [_fspath(input), _fspath(output), _options_json(opts), p.fn, None,
                                  cancel._ref() if cancel else None], p)
    return ConvertReport(output=str(raw.get("output", os.fspath(output))), kind="photo" if photo else "video",
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
    if (audio_from is None) == (not no_audio):
        raise invalid_argument("give audio_from (the converted input, whose audio is carried once) or no_audio=True")
    opts = {"audio_from": None if audio_from is None else os.fspath(audio_from), "audio": "none" if no_audio else None}
    p = _Progress(progress)
    raw = _call_report("sm_concat_video", [json.dumps(paths).encode(), _fspath(output), _options_json(opts), p.fn, None,
                                           cancel._ref() if cancel else None], p)
    return ConcatReport(output=str(raw.get("output", os.fspath(output))), bytes_written=int(raw.get("bytes_written", 0)),
                        frames=int(raw.get("frames", 0)), segments=int(raw.get("segments", 0)),
                        audio=list(raw.get("audio", [])), seconds=float(raw.get("seconds", 0.0)), raw=raw)


def split(input: PathLike, left_output: PathLike, right_output: PathLike, *, sbs_output: Optional[PathLike] = None,
          quality: Optional[int] = None, progress: Optional[ProgressCallback] = None,
          cancel: Optional[CancelToken] = None) -> SplitReport:
    """Splits a spatial photo into two images (format from each extension: .png, .jpg, .heic; plus a
    side-by-side ``sbs_output``) or a spatial video into two single-layer HEVC streams (no decoding)."""
    opts = {"quality": None if quality is None else _integer("quality", quality, 0, 100),
            "sbs_output": None if sbs_output is None else os.fspath(sbs_output)}
    p = _Progress(progress)
    raw = _call_report("sm_split", [_fspath(input), _fspath(left_output), _fspath(right_output), _options_json(opts),
                                    p.fn, None, cancel._ref() if cancel else None], p)
    return SplitReport(input=str(raw.get("input", "")), left_output=str(raw.get("left_output", "")),
                       right_output=str(raw.get("right_output", "")), sbs_output=raw.get("sbs_output"), raw=raw)
