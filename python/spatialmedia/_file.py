"""Open files (``sm_file``): kind, spatial metadata, info, and validation of an open file."""
from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Optional

from . import _native
from ._core import _Handle, CancelToken, PathLike, ProgressCallback, _call_report, _check, _fspath, _lib, _Progress, _take_string
from ._errors import InvalidHandleError
from ._types import _HERO_NAMES, _KINDS, Kind, PhotoEyes, StereoParameters, ValidationReport, VideoClass
from ._validate import _validation_options


class SpatialFile(_Handle):
    """An open file (``sm_file``): its kind, spatial metadata and info. Immutable after opening; safe to
    use from several threads. Use as a context manager or call close()."""

    _free = "sm_file_free"

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

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass

    def __repr__(self) -> str:
        return f"<SpatialFile {self.path or '(memory)'}{' closed' if self._handle is None else ''}>"

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


def info(path: PathLike) -> dict[str, Any]:
    """``spatial-media info --json PATH`` as a dict, for any file the command line reads (ISOBMFF, raw HEVC,
    JPEG/MPO/PNG, and files only FFmpeg reads such as Matroska and MPEG-TS); ``open(path).info()`` takes only what
    the library's own parsers read. A file that cannot be read raises; a damaged one has "damaged" in the dict."""
    out = ctypes.c_void_p()
    n = ctypes.c_size_t()
    _check(_lib().sm_info_path(_fspath(path), 0, ctypes.byref(out), ctypes.byref(n)), "sm_info_path")
    result: dict[str, Any] = json.loads(_take_string(out) or "{}")
    return result
