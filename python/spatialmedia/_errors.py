"""Exceptions raised by the spatialmedia package: one class per status of the C ABI."""
from __future__ import annotations

from typing import Optional

from . import _native


class SpatialMediaError(Exception):
    """A call into libspatialmedia failed.

    Attributes:
        code: the status code of the C ABI (``spatialmedia.Status``; e.g. 4 = SM_ERR_PARSE).
        name: its constant name (``"SM_ERR_PARSE"``).
        message: the library's message (it names the function, the reason and where).
        offset: the byte offset in the input file where the problem was found, or None when the error
            has no position (a bad argument, a missing file).
        box_path: the path of the box or structure being read (``"moov/trak[0]/mdia"``), or None.
        reason: the library's machine-readable reason (``"truncated"``, ``"size-past-parent"``, …), or None.
        function: the C function that failed.
    """

    code: int
    name: str
    message: str
    offset: Optional[int]
    box_path: Optional[str]
    reason: Optional[str]
    function: str

    def __init__(self, code: int, message: str, function: str = "", offset: Optional[int] = None,
                 box_path: Optional[str] = None, reason: Optional[str] = None, name: Optional[str] = None):
        self.code = code
        self.name = name or _STATUS_NAMES.get(code, f"SM_ERR_{code}")
        self.message = message
        self.function = function
        self.offset = offset
        self.box_path = box_path
        self.reason = reason
        super().__init__(f"{self.name}: {message}")

    @property
    def status(self) -> int:
        """The status code (alias of ``code``)."""
        return self.code


class InvalidArgumentError(SpatialMediaError, ValueError):
    """SM_ERR_INVALID_ARGUMENT: a value out of range, a wrong type, a path that may not be used."""


class InvalidOptionError(InvalidArgumentError):
    """SM_ERR_INVALID_OPTION: an option (keyword) is refused: unknown, of the wrong type, not among the allowed
    values or out of range, or not applying to the input. A kind of ``InvalidArgumentError``."""


class InvalidHandleError(SpatialMediaError):
    """SM_ERR_INVALID_HANDLE: the file or edit was closed already."""


class FileAccessError(SpatialMediaError, OSError):
    """SM_ERR_IO: a file could not be opened, read or written."""

    def __str__(self) -> str:  # OSError would format its own way
        return f"{self.name}: {self.message}"


class ParseError(SpatialMediaError):
    """SM_ERR_PARSE: the input is malformed or not a format the library reads."""


class NotFoundError(SpatialMediaError, LookupError):
    """SM_ERR_NOT_FOUND: the file does not carry the requested value."""


class NotApplicableError(SpatialMediaError):
    """SM_ERR_NOT_APPLICABLE: the operation cannot be applied to this input."""


class UnsupportedError(SpatialMediaError):
    """SM_ERR_UNSUPPORTED: this build of the library does not provide the operation."""


class CancelledError(SpatialMediaError):
    """SM_ERR_CANCELLED: the progress callback or the cancel token stopped the operation; nothing was written."""


class LimitError(SpatialMediaError):
    """SM_ERR_LIMIT: a safety limit of the parser was exceeded."""


class OutOfMemoryError(SpatialMediaError, MemoryError):
    """SM_ERR_NO_MEMORY."""


class InternalError(SpatialMediaError):
    """SM_ERR_INTERNAL: a bug in the library; please report the message."""


_STATUS_NAMES = {
    0: "SM_OK", 1: "SM_ERR_INVALID_ARGUMENT", 2: "SM_ERR_INVALID_HANDLE", 3: "SM_ERR_IO", 4: "SM_ERR_PARSE",
    5: "SM_ERR_NOT_FOUND", 6: "SM_ERR_NOT_APPLICABLE", 7: "SM_ERR_UNSUPPORTED", 8: "SM_ERR_CANCELLED",
    9: "SM_ERR_LIMIT", 10: "SM_ERR_NO_MEMORY", 11: "SM_ERR_INTERNAL", 12: "SM_ERR_INVALID_OPTION",
}

ERROR_CLASSES: dict[int, type[SpatialMediaError]] = {
    1: InvalidArgumentError, 2: InvalidHandleError, 3: FileAccessError, 4: ParseError, 5: NotFoundError,
    6: NotApplicableError, 7: UnsupportedError, 8: CancelledError, 9: LimitError, 10: OutOfMemoryError,
    11: InternalError, 12: InvalidOptionError,
}


def error_from_last(code: int, function: str) -> SpatialMediaError:
    """The exception for a failed call: reads the thread's last error (message, offset, box path)."""
    import ctypes
    lib = _native.load()
    message = (lib.sm_last_error() or b"").decode("utf-8", "replace")
    offset: Optional[int] = None
    box_path: Optional[str] = None
    reason: Optional[str] = None
    if hasattr(lib, "sm_last_error_location"):
        off = ctypes.c_int64(-1)
        path = ctypes.c_char_p()
        why = ctypes.c_char_p()
        lib.sm_last_error_location(ctypes.byref(off), ctypes.byref(path), ctypes.byref(why))
        offset = off.value if off.value >= 0 else None
        box_path = path.value.decode("utf-8", "replace") if path.value else None
        reason = why.value.decode("utf-8", "replace") if why.value else None
    name = (lib.sm_status_name(code) or b"").decode() or None
    cls = ERROR_CLASSES.get(code, SpatialMediaError)
    return cls(code, message, function, offset=offset, box_path=box_path, reason=reason, name=name)


def invalid_argument(message: str, function: str = "") -> InvalidArgumentError:
    """An argument error detected in Python, before anything reaches the library."""
    return InvalidArgumentError(_native.INVALID_ARGUMENT, message, function)
