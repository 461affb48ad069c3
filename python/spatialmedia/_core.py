"""The calls into libspatialmedia: loading, status checks, strings the library allocates, progress and
cancellation. Nothing here knows an option, a range, a unit or a route: those are the library's."""
from __future__ import annotations

import ctypes
import json
import numbers
import os
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from . import _native
from ._errors import error_from_last, invalid_argument

PathLike = Union[str, "os.PathLike[str]"]
ProgressCallback = Callable[[float, str], Optional[bool]]


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


_C_INTEGERS = {"uint32": (0, 0xFFFF_FFFF), "int32": (-0x8000_0000, 0x7FFF_FFFF)}


def _c_integer(name: str, value: Any, ctype: str) -> int:
    """`value` as a Python int that fits the C parameter type (`ctype`: "uint32" or "int32"), so ctypes cannot
    silently wrap it. Whether the value makes sense (its range, its unit) is the library's check, not this one."""
    low, high = _C_INTEGERS[ctype]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= int(value) <= high:
        raise invalid_argument(f"{name} must be an integer that fits a C {ctype}_t (got {value!r})")
    return int(value)


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


def _call_report(function: str, args: Sequence[Any], progress: Optional["_Progress"] = None) -> dict[str, Any]:
    out = ctypes.c_void_p()
    status = getattr(_lib(), function)(*args, ctypes.byref(out))
    if progress is not None:
        progress.reraise()
    _check(status, function)
    text = _take_string(out)
    return json.loads(text) if text else {}


class _Handle:
    """A native handle (``sm_file *``, ``sm_edit *``) freed by ``_free`` on close() or at the end of a with block."""
    _free = ""
    _handle: Optional[ctypes.c_void_p] = None

    def close(self) -> None:
        if self._handle is not None:
            h, self._handle = self._handle, None
            _check(getattr(_lib(), self._free)(h), self._free)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def handle(self) -> Optional[ctypes.c_void_p]:
        """The raw native pointer (None after close())."""
        return self._handle


def _options_json(options: Mapping[str, Any]) -> Optional[bytes]:
    """The given (not None) options as the JSON object the C ABI reads; tuples become arrays."""
    clean = {k: (list(v) if isinstance(v, tuple) else v) for k, v in options.items() if v is not None}
    try:
        return json.dumps(clean).encode() if clean else None
    except (TypeError, ValueError) as e:
        raise invalid_argument(f"an option cannot be passed to the library: {e}") from None
