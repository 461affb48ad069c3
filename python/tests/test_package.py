"""The installed package: metadata, bundled library, typing marker, library basics."""
import ctypes
import os
import subprocess
import sys
from importlib import metadata

import pytest

import spatialmedia as sm

WHEEL = os.environ.get("SPATIALMEDIA_EXPECT_WHEEL") == "1"  # set by scripts/sdk-check.sh


def test_versions_agree():
    assert sm.version() == sm.__version__
    assert sm.abi_version() == 1
    if WHEEL:
        assert metadata.version("spatialmedia") == sm.__version__


def test_capabilities():
    assert {"info", "edit_video", "edit_photo", "combine_photo", "validate", "convert_photo", "convert_video",
            "split"} <= sm.capabilities()


def test_py_typed_marker_is_installed():
    assert os.path.exists(os.path.join(os.path.dirname(sm.__file__), "py.typed"))


@pytest.mark.skipif(not WHEEL, reason="only for the installed wheel")
def test_wheel_metadata_carries_the_licence():
    meta = metadata.metadata("spatialmedia")
    assert meta.get("License-Expression") == "GPL-2.0-or-later", meta.get("License-Expression")
    files = {str(f) for f in metadata.files("spatialmedia") or []}
    assert any(f.endswith("LICENSE") for f in files), sorted(files)[:20]
    assert any(f.endswith("THIRD_PARTY_LICENSES.md") for f in files)


@pytest.mark.skipif(not WHEEL, reason="only for the installed wheel")
def test_bundled_library_needs_nothing_from_the_swift_toolchain():
    path = sm.library_path()
    package = os.path.dirname(os.path.abspath(sm.__file__))
    assert os.path.abspath(path).startswith(os.path.join(package, "_lib")), (path, package)
    assert "site-packages" in package, package  # not the source tree
    if sys.platform.startswith("linux"):
        out = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
        needed = [line.split()[0] for line in out.splitlines() if line.strip()]
        toolchain = [n for n in needed if n.startswith(("libswift", "libdispatch", "libBlocksRuntime", "libFoundation"))]
        assert not toolchain, out
        assert "not found" not in out, out


def test_status_names_and_last_error():
    lib = sm._native.load()
    assert lib.sm_status_name(0) == b"SM_OK"
    assert lib.sm_status_name(999) == b"SM_ERR_UNKNOWN"
    assert lib.sm_last_error() is not None
    assert [s.value for s in sm.Status] == list(range(13))
    for s in sm.Status:
        assert lib.sm_status_name(int(s)).decode().endswith(s.name)


def test_raw_abi_rejects_bad_pointers_and_handles():
    lib = sm._native.load()
    h = ctypes.c_void_p()
    assert lib.sm_file_open(None, ctypes.byref(h)) == sm.Status.INVALID_ARGUMENT and h.value is None
    assert lib.sm_file_open(b"\xff\xfe.mp4", ctypes.byref(h)) == sm.Status.INVALID_ARGUMENT
    assert b"UTF-8" in lib.sm_last_error()
    k = ctypes.c_int32()
    assert lib.sm_file_kind(ctypes.c_void_p(0x1234), ctypes.byref(k)) == sm.Status.INVALID_HANDLE
    assert lib.sm_file_free(None) == sm.Status.OK
