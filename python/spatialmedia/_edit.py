"""Metadata edits of spatial videos and photos (``sm_edit``), and spatial photos combined from HEIF images."""
from __future__ import annotations

import ctypes
from typing import Any, Iterable, Optional, Union

from ._core import _Handle, PathLike, _c_integer, _call_report, _check, _fspath, _lib, _options_json
from ._errors import invalid_argument
from ._types import EditReport

# The C ABI's enumerations by name: a translation, not a check (the library refuses what it does not take).
_FIELDS = {"baseline": 1, "hfov": 2, "disparity": 3, "hero_eye": 4, "projection": 5}
_PHOTO_FORMS = {"apple": 0, "standard": 1, "both": 2}
_HERO_EYES = {"none": 0, "left": 1, "right": 2}


def _named(kind: str, table: dict[str, int], value: Any) -> int:
    if isinstance(value, str):
        if value not in table:
            raise invalid_argument(f"{kind}: unknown name {value!r} (the library takes {', '.join(table)})")
        return table[value]
    return _c_integer(kind, value, "int32")


class _Edit(_Handle):
    """An ``sm_edit`` handle holding the values as given; the library converts units and checks ranges
    (``sm_edit_set_values``, ``sm_edit_set_hero_eye``: reserved hero values are refused there)."""

    _free = "sm_edit_free"

    def __init__(self, values: dict[str, Any], hero_eye: Union[str, int, None] = None, projection: Optional[str] = None,
                 remove: Iterable[str] = (), remove_spatial: bool = False, photo_form: Optional[str] = None):
        lib = _lib()
        h = ctypes.c_void_p()
        calls: list[tuple[str, Any]] = []
        given = _options_json(values)
        if given is not None:
            calls.append(("sm_edit_set_values", given))
        if hero_eye is not None:
            calls.append(("sm_edit_set_hero_eye", _named("hero_eye", _HERO_EYES, hero_eye)))
        if projection is not None:
            if not isinstance(projection, str):
                raise invalid_argument(f"projection must be a four-character code such as 'rect' (got {projection!r})")
            calls.append(("sm_edit_set_projection", projection.encode("utf-8")))
        for name in remove:
            calls.append(("sm_edit_remove_field", _named("remove", _FIELDS, name)))
        if remove_spatial:
            calls.append(("sm_edit_set_remove_spatial", 1))
        if photo_form is not None:
            calls.append(("sm_edit_set_photo_form", _named("photo_form", _PHOTO_FORMS, photo_form)))
        _check(lib.sm_edit_create(ctypes.byref(h)), "sm_edit_create")
        self._handle = h
        try:
            for function, value in calls:
                _check(getattr(lib, function)(h, value), function)
        except BaseException:
            self.close()
            raise


def _edit_report(raw: dict[str, Any]) -> EditReport:
    return EditReport(output=str(raw.get("output", "")), changes=list(raw.get("changes", [])),
                      warnings=list(raw.get("edit_warnings", [])), strategy=raw.get("strategy"),
                      bytes_written=raw.get("bytes_written"), raw=raw)


def _values(baseline_um: Any, baseline_mm: Any, hfov_millidegrees: Any, hfov_degrees: Any, disparity: Any,
            disparity_percent: Any) -> dict[str, Any]:
    return {"baseline_um": baseline_um, "baseline_mm": baseline_mm, "hfov_millidegrees": hfov_millidegrees,
            "hfov_degrees": hfov_degrees, "disparity": disparity, "disparity_percent": disparity_percent}


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
    InvalidArgumentError (the library's check) before anything is written.
    """
    values = _values(baseline_um, baseline_mm, hfov_millidegrees, hfov_degrees, disparity, disparity_percent)
    with _Edit(values, hero_eye=hero_eye, projection=projection, remove=remove, remove_spatial=remove_spatial,
               photo_form=photo_form) as e:
        raw = _call_report("sm_edit_apply", [_fspath(path), _fspath(output), e.handle, 1 if faststart else 0])
    return _edit_report(raw)


def combine_photo(left: PathLike, right: Optional[PathLike], output: PathLike, *, left_item: int = 0,
                  right_item: int = 0, swap_eyes: bool = False, baseline_um: Optional[int] = None,
                  baseline_mm: Optional[float] = None, hfov_millidegrees: Optional[int] = None,
                  hfov_degrees: Optional[float] = None, disparity: Optional[int] = None,
                  disparity_percent: Optional[float] = None, photo_form: Optional[str] = None) -> EditReport:
    """Makes a spatial photo without re-encoding from two HEIF files, or from two images of one file
    (``right`` None; ``left_item``/``right_item`` name them, 0 and 0 = the two displayable images).
    Values not given are the input's (a spatial photo keeps its calibration) or the library's defaults,
    exactly as ``spatial-media combine`` fills them."""
    values = _values(baseline_um, baseline_mm, hfov_millidegrees, hfov_degrees, disparity, disparity_percent)
    li = _c_integer("left_item", left_item, "uint32")
    ri = _c_integer("right_item", right_item, "uint32")
    with _Edit(values, photo_form=photo_form) as e:
        raw = _call_report("sm_combine_photo", [_fspath(left), _fspath(right), li, ri, 1 if swap_eyes else 0,
                                                e.handle, _fspath(output)])
    return _edit_report(raw)
