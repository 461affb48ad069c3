"""The libheif 1.23 that pillow-heif bundles, reached through ctypes for the oracles (heif_oracle.py, aux_oracle.py):
its functions declared from a table, and a file opened into a context. Never used by the library."""
import ctypes, glob, json, os, sys
import pillow_heif


class Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("subcode", ctypes.c_int), ("message", ctypes.c_char_p)]


def load(functions):
    """The library with each (name, restype, argtypes) of `functions` declared."""
    libdir = os.path.join(os.path.dirname(pillow_heif.__file__), "..", "pillow_heif.libs")
    lib = ctypes.CDLL(glob.glob(os.path.join(libdir, "libheif-*.so*"))[0])
    for name, res, args in functions:
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


def open_context(lib, path):
    """A context holding `path`; when libheif refuses the file, prints {"error": …} and exits 0 (the oracle's answer)."""
    lib.heif_context_alloc.restype = ctypes.c_void_p
    lib.heif_context_read_from_file.restype = Err
    lib.heif_context_read_from_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    ctx = lib.heif_context_alloc()
    e = lib.heif_context_read_from_file(ctx, path.encode(), None)
    if e.code != 0:
        print(json.dumps({"error": (e.message or b"").decode()}))
        sys.exit(0)
    return ctx
