"""Low-level ctypes declarations of libspatialmedia's C ABI (include/spatialmedia.h).

The library is looked up, in order:
  1. the SPATIALMEDIA_LIB environment variable (a path to the shared library, or a directory holding it);
  2. the copy bundled in the wheel (spatialmedia/_lib/), which has the Swift runtime linked in;
  3. pkg-config (`pkg-config --variable=libdir spatialmedia`, after `make install`);
  4. a source checkout's build directories (.build*/{release,debug});
  5. the system loader (ctypes.util.find_library("spatialmedia")).

Every call goes through ctypes.CDLL, which releases the GIL for the duration of the native call; the
progress callback takes it back while it runs.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import subprocess
import sys
from typing import Any, Iterator, Optional

# Status codes (spatialmedia.h).
OK, INVALID_ARGUMENT, INVALID_HANDLE, IO, PARSE, NOT_FOUND, NOT_APPLICABLE, UNSUPPORTED, CANCELLED, LIMIT, NO_MEMORY, INTERNAL, INVALID_OPTION = range(13)

_LIBNAMES = ("libspatialmedia.dylib",) if sys.platform == "darwin" else ("libspatialmedia.so",)
_HERE = os.path.dirname(os.path.abspath(__file__))

c_char_pp = ctypes.POINTER(ctypes.c_void_p)  # char ** (kept as void * so the pointer can be freed)
PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_double, ctypes.c_char_p)


def _candidates() -> Iterator[str]:
    env = os.environ.get("SPATIALMEDIA_LIB")
    if env:
        if os.path.isdir(env):
            yield from (os.path.join(env, n) for n in _LIBNAMES)
        else:
            yield env
        return  # an explicit choice is not second-guessed
    for n in _LIBNAMES:
        yield os.path.join(_HERE, "_lib", n)
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "spatialmedia"], capture_output=True, text=True,
                                timeout=10).stdout.strip()
        if libdir:
            yield from (os.path.join(libdir, n) for n in _LIBNAMES)
    except (OSError, subprocess.SubprocessError):
        pass
    root = os.path.dirname(os.path.dirname(_HERE))  # python/spatialmedia -> the repository
    for config in ("release", "debug"):
        for n in _LIBNAMES:
            yield from sorted(glob.glob(os.path.join(root, ".build*", config, n)))
            yield from sorted(glob.glob(os.path.join(root, ".build*", "*", config, n)))
    found = ctypes.util.find_library("spatialmedia")
    if found:
        yield found


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    P, u32, i32, st = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int32, ctypes.c_int32
    s = ctypes.c_char_p
    sigs: dict[str, tuple[Any, list[Any]]] = {
        "sm_version": (s, []), "sm_abi_version": (u32, []), "sm_capabilities": (u32, []),
        "sm_status_name": (s, [st]), "sm_last_error": (s, []),
        "sm_string_free": (None, [P]), "sm_buffer_free": (None, [P]),
        "sm_file_open": (st, [s, ctypes.POINTER(P)]),
        "sm_file_open_memory": (st, [P, ctypes.c_size_t, ctypes.POINTER(P)]),
        "sm_file_free": (st, [P]),
        "sm_file_kind": (st, [P, ctypes.POINTER(i32)]),
        "sm_file_is_spatial": (st, [P, ctypes.POINTER(i32)]),
        "sm_file_info_json": (st, [P, u32, c_char_pp, ctypes.POINTER(ctypes.c_size_t)]),
        "sm_info_path": (st, [s, u32, c_char_pp, ctypes.POINTER(ctypes.c_size_t)]),
        "sm_file_serialize": (st, [P, c_char_pp, ctypes.POINTER(ctypes.c_size_t)]),
        "sm_video_classification": (st, [P, ctypes.POINTER(i32)]),
        "sm_video_classification_name": (s, [i32]),
        "sm_video_baseline_um": (st, [P, ctypes.POINTER(u32)]),
        "sm_video_hfov_millidegrees": (st, [P, ctypes.POINTER(u32)]),
        "sm_video_disparity": (st, [P, ctypes.POINTER(i32)]),
        "sm_video_hero_eye": (st, [P, ctypes.POINTER(i32)]),
        "sm_photo_eye_items": (st, [P, ctypes.POINTER(u32), ctypes.POINTER(u32)]),
        "sm_photo_size": (st, [P, ctypes.POINTER(u32), ctypes.POINTER(u32)]),
        "sm_photo_baseline_um": (st, [P, ctypes.POINTER(ctypes.c_double)]),
        "sm_photo_hfov_millidegrees": (st, [P, ctypes.POINTER(ctypes.c_double)]),
        "sm_photo_disparity": (st, [P, ctypes.POINTER(i32)]),
        "sm_edit_create": (st, [ctypes.POINTER(P)]), "sm_edit_free": (st, [P]),
        "sm_edit_set_baseline_um": (st, [P, u32]), "sm_edit_set_hfov_millidegrees": (st, [P, u32]),
        "sm_edit_set_disparity": (st, [P, i32]), "sm_edit_set_hero_eye": (st, [P, i32]),
        "sm_edit_set_projection": (st, [P, s]), "sm_edit_remove_field": (st, [P, i32]),
        "sm_edit_set_remove_spatial": (st, [P, i32]), "sm_edit_set_photo_form": (st, [P, i32]),
        "sm_edit_video": (st, [s, s, P, u32, c_char_pp]),
        "sm_edit_photo": (st, [s, s, P, c_char_pp]),
        "sm_edit_apply": (st, [s, s, P, u32, c_char_pp]),
        "sm_combine_photo": (st, [s, s, u32, u32, u32, P, s, c_char_pp]),
        "sm_validate": (st, [P, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]),
        "sm_convert_photo": (st, [s, s, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]),
        "sm_convert_video": (st, [s, s, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]),
        "sm_split": (st, [s, s, s, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]),
        "sm_concat_video": (st, [s, s, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]),
    }
    # Added in library 0.3.0 (the operations layer): one convert call, its name table, stereo values in either unit.
    optional = {
        "sm_convert": (st, [s, s, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]),
        "sm_option_table": (st, [s, c_char_pp]),
        "sm_edit_set_values": (st, [P, s]),
        "sm_align_photo": (st, [s, s, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]),
        "sm_fix_video": (st, [s, s, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]),
    }
    for name, sig in optional.items():
        if hasattr(lib, name):
            sigs[name] = sig
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    # Added in library 0.2.0; older libraries lack it (errors then carry no offset or box path).
    if hasattr(lib, "sm_last_error_location"):
        lib.sm_last_error_location.restype = None
        lib.sm_last_error_location.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_char_p),
                                               ctypes.POINTER(ctypes.c_char_p)]
    if hasattr(lib, "sm_validate_path"):
        lib.sm_validate_path.restype = st
        lib.sm_validate_path.argtypes = [s, s, PROGRESS, P, ctypes.POINTER(i32), c_char_pp]
    if hasattr(lib, "sm_validation_inputs"):
        lib.sm_validation_inputs.restype = st
        lib.sm_validation_inputs.argtypes = [s, c_char_pp]
    return lib


_LIB: Optional[ctypes.CDLL] = None
_LIB_PATH: Optional[str] = None


def load(path: Optional[str] = None) -> ctypes.CDLL:
    """Loads libspatialmedia (once) and returns the ctypes handle. `path` overrides the search."""
    global _LIB, _LIB_PATH
    if _LIB is not None and path is None:
        return _LIB
    errors = []
    for candidate in ([path] if path else _candidates()):
        if not candidate or (os.path.sep in candidate and not os.path.exists(candidate)):
            continue
        try:
            _LIB = _declare(ctypes.CDLL(candidate))
            _LIB_PATH = candidate
            return _LIB
        except OSError as e:
            errors.append(f"{candidate}: {e}")
    raise OSError("libspatialmedia not found; install the spatialmedia wheel, set SPATIALMEDIA_LIB, or "
                  "`make install PREFIX=...`" + "".join("\n  " + e for e in errors))


def library_path() -> str:
    """The path of the loaded library."""
    load()
    return _LIB_PATH or ""
