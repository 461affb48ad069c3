"""spatialmedia — Python bindings over libspatialmedia's C ABI (ctypes, no compiled extension).

The library is looked up, in order:
  1. the SPATIALMEDIA_LIB environment variable (a path to the shared library, or a directory holding it);
  2. pkg-config (`pkg-config --variable=libdir spatialmedia`);
  3. the package's build directories next to this file (../.build*/{release,debug});
  4. the system loader (ctypes.util.find_library("spatialmedia")).

Example:
    import spatialmedia as sm
    with sm.SpatialFile("photo.heic") as f:
        print(f.kind, f.photo_baseline_um(), f.info()["spatial_photo"]["hfov_degrees"])
    sm.edit("movie.mp4", output="out.mp4", baseline_um=64000)

Errors raise SpatialMediaError (with .status, .name and .message); getters return None when the file
does not carry the value (SM_ERR_NOT_FOUND).
"""
import ctypes
import ctypes.util
import glob
import json
import os
import subprocess
import sys

__all__ = [
    "SpatialMediaError", "SpatialFile", "Edit", "load", "version", "abi_version", "capabilities",
    "edit", "edit_video", "edit_photo", "combine_photo", "validate", "convert_photo", "convert_video", "split",
]

# Status codes (spatialmedia.h).
OK, INVALID_ARGUMENT, INVALID_HANDLE, IO, PARSE, NOT_FOUND, NOT_APPLICABLE, UNSUPPORTED, CANCELLED, LIMIT, NO_MEMORY, INTERNAL = range(12)
KINDS = {0: "other", 1: "movie", 2: "image", 3: "hevc-stream"}
CAPABILITIES = {"info": 1, "edit_video": 2, "edit_photo": 4, "combine_photo": 8, "validate": 16,
                "convert_photo": 32, "convert_video": 64, "split": 128}
FIELDS = {"baseline": 1, "hfov": 2, "disparity": 3, "hero_eye": 4, "projection": 5}
PHOTO_FORMS = {"apple": 0, "standard": 1, "both": 2}
HERO_EYES = {"none": 0, "left": 1, "right": 2}
SM_JSON_PRETTY = 1
SM_EDIT_FASTSTART = 1
SM_COMBINE_SWAP_EYES = 1

_LIBNAMES = ("libspatialmedia.dylib",) if sys.platform == "darwin" else ("libspatialmedia.so",)


class SpatialMediaError(Exception):
    """A call into libspatialmedia failed."""

    def __init__(self, status, message, function=""):
        self.status = status
        self.name = _lib().sm_status_name(status).decode() if _LIB is not None else str(status)
        self.message = message
        self.function = function
        super().__init__(f"{self.name}: {message}")


def _candidates():
    env = os.environ.get("SPATIALMEDIA_LIB")
    if env:
        if os.path.isdir(env):
            yield from (os.path.join(env, n) for n in _LIBNAMES)
        else:
            yield env
        return  # an explicit choice is not second-guessed
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "spatialmedia"], capture_output=True, text=True,
                                timeout=10).stdout.strip()
        if libdir:
            yield from (os.path.join(libdir, n) for n in _LIBNAMES)
    except (OSError, subprocess.SubprocessError):
        pass
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for config in ("release", "debug"):
        for n in _LIBNAMES:
            yield from sorted(glob.glob(os.path.join(root, ".build*", config, n)))
            yield from sorted(glob.glob(os.path.join(root, ".build*", "*", config, n)))
    found = ctypes.util.find_library("spatialmedia")
    if found:
        yield found


_LIB = None

_c_char_pp = ctypes.POINTER(ctypes.c_void_p)  # char ** (kept as void * so the pointer can be freed)
_PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_double, ctypes.c_char_p)


def _declare(lib):
    P, u32, i32, st = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int32, ctypes.c_int32
    s = ctypes.c_char_p
    sigs = {
        "sm_version": (s, []), "sm_abi_version": (u32, []), "sm_capabilities": (u32, []),
        "sm_status_name": (s, [st]), "sm_last_error": (s, []),
        "sm_string_free": (None, [P]), "sm_buffer_free": (None, [P]),
        "sm_file_open": (st, [s, ctypes.POINTER(P)]),
        "sm_file_open_memory": (st, [P, ctypes.c_size_t, ctypes.POINTER(P)]),
        "sm_file_free": (st, [P]),
        "sm_file_kind": (st, [P, ctypes.POINTER(i32)]),
        "sm_file_is_spatial": (st, [P, ctypes.POINTER(i32)]),
        "sm_file_info_json": (st, [P, u32, _c_char_pp, ctypes.POINTER(ctypes.c_size_t)]),
        "sm_file_serialize": (st, [P, _c_char_pp, ctypes.POINTER(ctypes.c_size_t)]),
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
        "sm_edit_video": (st, [s, s, P, u32, _c_char_pp]),
        "sm_edit_photo": (st, [s, s, P, _c_char_pp]),
        "sm_edit_apply": (st, [s, s, P, u32, _c_char_pp]),
        "sm_combine_photo": (st, [s, s, u32, u32, u32, P, s, _c_char_pp]),
        "sm_validate": (st, [P, s, _PROGRESS, P, ctypes.POINTER(i32), _c_char_pp]),
        "sm_convert_photo": (st, [s, s, s, _PROGRESS, P, ctypes.POINTER(i32), _c_char_pp]),
        "sm_convert_video": (st, [s, s, s, _PROGRESS, P, ctypes.POINTER(i32), _c_char_pp]),
        "sm_split": (st, [s, s, s, s, _PROGRESS, P, ctypes.POINTER(i32), _c_char_pp]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


def load(path=None):
    """Loads the library (once). `path` overrides the search."""
    global _LIB
    if _LIB is not None and path is None:
        return _LIB
    errors = []
    for candidate in ([path] if path else _candidates()):
        if not candidate or (os.path.sep in candidate and not os.path.exists(candidate)):
            continue
        try:
            _LIB = _declare(ctypes.CDLL(candidate))
            _LIB._path = candidate
            return _LIB
        except OSError as e:
            errors.append(f"{candidate}: {e}")
    raise OSError("libspatialmedia not found; set SPATIALMEDIA_LIB or install it (make install PREFIX=...)"
                  + ("".join("\n  " + e for e in errors)))


_lib = load


def _check(status, function):
    if status != OK:
        raise SpatialMediaError(status, _lib().sm_last_error().decode("utf-8", "replace"), function)


def _path(p):
    if p is None:
        return None
    return os.fsencode(p)


def _take_string(ptr):
    """Copies and frees a library-allocated string."""
    if not ptr.value:
        return None
    try:
        return ctypes.string_at(ptr.value).decode("utf-8")
    finally:
        _lib().sm_string_free(ptr)


def version():
    return _lib().sm_version().decode()


def abi_version():
    return _lib().sm_abi_version()


def capabilities():
    """The names of the operations this build provides."""
    bits = _lib().sm_capabilities()
    return {name for name, bit in CAPABILITIES.items() if bits & bit}


class SpatialFile:
    """An open file (sm_file). Use as a context manager or call close()."""

    def __init__(self, path=None, data=None):
        if (path is None) == (data is None):
            raise ValueError("give a path or data, not both")
        lib = _lib()
        handle = ctypes.c_void_p()
        if path is not None:
            _check(lib.sm_file_open(_path(path), ctypes.byref(handle)), "sm_file_open")
        else:
            data = bytes(data)
            buf = ctypes.create_string_buffer(data, len(data)) if data else None
            _check(lib.sm_file_open_memory(buf, len(data), ctypes.byref(handle)), "sm_file_open_memory")
        self._handle = handle
        self.path = path

    @classmethod
    def from_bytes(cls, data):
        return cls(data=data)

    def close(self):
        if self._handle is not None:
            h, self._handle = self._handle, None
            _check(_lib().sm_file_free(h), "sm_file_free")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def handle(self):
        """The raw handle (after close(): the stale handle, which the library rejects)."""
        return self._handle

    def _get(self, function, ctype):
        v = ctype()
        status = getattr(_lib(), function)(self._handle, ctypes.byref(v))
        if status == NOT_FOUND:
            return None
        _check(status, function)
        return v.value

    @property
    def kind(self):
        return KINDS.get(self._get("sm_file_kind", ctypes.c_int32), "unknown")

    @property
    def is_spatial(self):
        return bool(self._get("sm_file_is_spatial", ctypes.c_int32))

    def info_json(self, pretty=False):
        out = ctypes.c_void_p()
        n = ctypes.c_size_t()
        _check(_lib().sm_file_info_json(self._handle, SM_JSON_PRETTY if pretty else 0, ctypes.byref(out), ctypes.byref(n)),
               "sm_file_info_json")
        return _take_string(out)

    def info(self):
        """The `spatial-media info --json` object as a dict."""
        return json.loads(self.info_json())

    def serialize(self):
        out = ctypes.c_void_p()
        n = ctypes.c_size_t()
        _check(_lib().sm_file_serialize(self._handle, ctypes.byref(out), ctypes.byref(n)), "sm_file_serialize")
        try:
            return ctypes.string_at(out.value, n.value)
        finally:
            _lib().sm_buffer_free(out)

    # Video
    def video_classification(self):
        c = self._get("sm_video_classification", ctypes.c_int32)
        return None if c is None else _lib().sm_video_classification_name(c).decode()

    def video_baseline_um(self):
        return self._get("sm_video_baseline_um", ctypes.c_uint32)

    def video_hfov_millidegrees(self):
        return self._get("sm_video_hfov_millidegrees", ctypes.c_uint32)

    def video_disparity(self):
        return self._get("sm_video_disparity", ctypes.c_int32)

    def video_hero_eye(self):
        return self._get("sm_video_hero_eye", ctypes.c_int32)

    # Photo
    def _pair(self, function):
        a, b = ctypes.c_uint32(), ctypes.c_uint32()
        status = getattr(_lib(), function)(self._handle, ctypes.byref(a), ctypes.byref(b))
        if status == NOT_FOUND:
            return None
        _check(status, function)
        return a.value, b.value

    def photo_eye_items(self):
        return self._pair("sm_photo_eye_items")

    def photo_size(self):
        return self._pair("sm_photo_size")

    def photo_baseline_um(self):
        return self._get("sm_photo_baseline_um", ctypes.c_double)

    def photo_hfov_millidegrees(self):
        return self._get("sm_photo_hfov_millidegrees", ctypes.c_double)

    def photo_disparity(self):
        return self._get("sm_photo_disparity", ctypes.c_int32)


class Edit:
    """An sm_edit built from keyword arguments: baseline_um, hfov_millidegrees, disparity, hero_eye
    ("none"/"left"/"right" or 0…255), projection ("rect"), remove (iterable of field names),
    remove_spatial (bool), photo_form ("apple"/"standard"/"both")."""

    def __init__(self, baseline_um=None, hfov_millidegrees=None, disparity=None, hero_eye=None, projection=None,
                 remove=(), remove_spatial=False, photo_form=None):
        lib = _lib()
        h = ctypes.c_void_p()
        _check(lib.sm_edit_create(ctypes.byref(h)), "sm_edit_create")
        self._handle = h
        try:
            if baseline_um is not None:
                _check(lib.sm_edit_set_baseline_um(h, int(baseline_um)), "sm_edit_set_baseline_um")
            if hfov_millidegrees is not None:
                _check(lib.sm_edit_set_hfov_millidegrees(h, int(hfov_millidegrees)), "sm_edit_set_hfov_millidegrees")
            if disparity is not None:
                _check(lib.sm_edit_set_disparity(h, int(disparity)), "sm_edit_set_disparity")
            if hero_eye is not None:
                eye = HERO_EYES[hero_eye] if isinstance(hero_eye, str) else int(hero_eye)
                _check(lib.sm_edit_set_hero_eye(h, eye), "sm_edit_set_hero_eye")
            if projection is not None:
                _check(lib.sm_edit_set_projection(h, projection.encode()), "sm_edit_set_projection")
            for name in remove:
                _check(lib.sm_edit_remove_field(h, FIELDS[name]), "sm_edit_remove_field")
            if remove_spatial:
                _check(lib.sm_edit_set_remove_spatial(h, 1), "sm_edit_set_remove_spatial")
            if photo_form is not None:
                _check(lib.sm_edit_set_photo_form(h, PHOTO_FORMS[photo_form]), "sm_edit_set_photo_form")
        except BaseException:
            self.close()
            raise

    def close(self):
        if self._handle is not None:
            h, self._handle = self._handle, None
            _check(_lib().sm_edit_free(h), "sm_edit_free")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _report(function, *args):
    out = ctypes.c_void_p()
    _check(getattr(_lib(), function)(*args, ctypes.byref(out)), function)
    text = _take_string(out)
    return json.loads(text) if text else None


def edit_video(path, output=None, faststart=False, **fields):
    """Edits a movie's spatial metadata (output None = in place). Returns the report dict."""
    with Edit(**fields) as e:
        return _report("sm_edit_video", _path(path), _path(output), e._handle, SM_EDIT_FASTSTART if faststart else 0)


def edit_photo(path, output=None, **fields):
    """Edits a spatial photo's stereo metadata (output None = in place). Returns the report dict."""
    with Edit(**fields) as e:
        return _report("sm_edit_photo", _path(path), _path(output), e._handle)


def edit(path, output=None, **fields):
    """edit_photo for HEIF images, edit_video otherwise."""
    with Edit(**fields) as e:
        return _report("sm_edit_apply", _path(path), _path(output), e._handle, 0)


def combine_photo(left, right=None, output=None, left_item=0, right_item=0, swap_eyes=False, **fields):
    """Makes a spatial photo from two HEIF files, or from two images of one file (right=None)."""
    with Edit(**fields) as e:
        return _report("sm_combine_photo", _path(left), _path(right), left_item, right_item,
                       SM_COMBINE_SWAP_EYES if swap_eyes else 0, e._handle, _path(output))


def _progress_args(progress, cancel):
    cb = _PROGRESS(lambda _user, fraction, stage: 1 if progress(fraction, (stage or b"").decode()) else 0) if progress else _PROGRESS()
    flag = ctypes.byref(cancel) if cancel is not None else None
    return cb, flag


def _options(options):
    return None if options is None else json.dumps(options).encode()


def validate(file, options=None, progress=None, cancel=None):
    """Validates an open SpatialFile. `progress(fraction, stage)` returns True to cancel; `cancel` is a
    ctypes.c_int32 another thread may set to 1."""
    cb, flag = _progress_args(progress, cancel)
    return _report("sm_validate", file.handle, _options(options), cb, None, flag)


def convert_photo(input, output, options=None, progress=None, cancel=None):
    cb, flag = _progress_args(progress, cancel)
    return _report("sm_convert_photo", _path(input), _path(output), _options(options), cb, None, flag)


def convert_video(input, output, options=None, progress=None, cancel=None):
    cb, flag = _progress_args(progress, cancel)
    return _report("sm_convert_video", _path(input), _path(output), _options(options), cb, None, flag)


def split(input, left_output, right_output, options=None, progress=None, cancel=None):
    cb, flag = _progress_args(progress, cancel)
    return _report("sm_split", _path(input), _path(left_output), _path(right_output), _options(options), cb, None, flag)
