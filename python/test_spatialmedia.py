"""Tests of the ctypes bindings: python3 python/test_spatialmedia.py (plain asserts, no pytest needed).

Uses Conformance/files/heif_grid_ster.heic from the repository, and the shared corpus
(../shared/corpus/spatial-photo/vision-pro.HEIC, ../shared/corpus/spatial-video/stereo_spatial.mp4)
when present; tests that need a missing file are skipped.
"""
import ctypes
import json
import os
import shutil
import sys
import tempfile
import threading
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import spatialmedia as sm  # noqa: E402

GRID = os.path.join(ROOT, "Conformance", "files", "heif_grid_ster.heic")
MOVIE_2D = os.path.join(ROOT, "Conformance", "files", "movie_moov_first.mp4")
CORPUS = os.environ.get("SPATIALMEDIA_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))
VISION_PRO = os.path.join(CORPUS, "spatial-photo", "vision-pro.HEIC")
SPATIAL_VIDEO = os.path.join(CORPUS, "spatial-video", "stereo_spatial.mp4")

TMP = tempfile.mkdtemp(prefix="sm-pytest-")
tests = []


class Skip(Exception):
    pass


def test(fn):
    tests.append(fn)
    return fn


def need(path):
    if not os.path.exists(path):
        raise Skip(f"{path} not present")


def raises(status, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except sm.SpatialMediaError as e:
        assert e.status == status, f"expected status {status}, got {e.status} ({e})"
        assert e.message, "error message is empty"
        return e
    raise AssertionError(f"expected SpatialMediaError {status}")


@test
def library_version_and_capabilities():
    assert sm.version().count(".") == 2
    assert sm.abi_version() == 1
    caps = sm.capabilities()
    assert {"info", "edit_video", "edit_photo", "combine_photo"} <= caps
    lib = sm.load()
    assert lib.sm_status_name(0) == b"SM_OK"
    assert lib.sm_status_name(999) == b"SM_ERR_UNKNOWN"
    assert lib.sm_last_error() is not None


@test
def generated_grid_photo():
    with sm.SpatialFile(GRID) as f:
        assert f.kind == "image"
        assert f.is_spatial
        assert f.photo_eye_items() == (1, 2)
        info = f.info()
        assert info["file"] == GRID
        assert info["spatial_photo"]["is_spatial_photo"] is True
        assert info["spatial_photo"]["left"]["item_id"] == 1
        assert f.video_baseline_um() is None  # not a movie → None (SM_ERR_NOT_FOUND)
        assert f.video_classification() is None
        with open(GRID, "rb") as fh:
            assert f.serialize() == fh.read()


@test
def memory_buffer_matches_path_except_file_key():
    with open(GRID, "rb") as fh:
        data = fh.read()
    with sm.SpatialFile(GRID) as a, sm.SpatialFile.from_bytes(data) as b:
        ia, ib = a.info(), b.info()
        assert "file" not in ib
        ia.pop("file")
        assert ia == ib


@test
def bad_arguments_give_statuses():
    lib = sm.load()
    h = ctypes.c_void_p()
    assert lib.sm_file_open(None, ctypes.byref(h)) == sm.INVALID_ARGUMENT and h.value is None
    assert lib.sm_last_error() != b""
    assert lib.sm_file_open(b"\xff\xfe.mp4", ctypes.byref(h)) == sm.INVALID_ARGUMENT
    assert b"UTF-8" in lib.sm_last_error()
    assert lib.sm_file_open_memory(ctypes.c_char_p(b"x"), 0, ctypes.byref(h)) == sm.INVALID_ARGUMENT
    assert lib.sm_file_open_memory(None, 10, ctypes.byref(h)) == sm.INVALID_ARGUMENT
    assert lib.sm_file_open(GRID.encode(), None) == sm.INVALID_ARGUMENT
    raises(sm.IO, sm.SpatialFile, os.path.join(TMP, "missing.mp4"))
    raises(sm.INVALID_ARGUMENT, sm.SpatialFile.from_bytes, b"")
    raises(sm.PARSE, sm.SpatialFile.from_bytes, b"this is not a media file at all")
    k = ctypes.c_int32()
    assert lib.sm_file_kind(None, ctypes.byref(k)) == sm.INVALID_ARGUMENT
    assert lib.sm_file_kind(ctypes.c_void_p(0x1234), ctypes.byref(k)) == sm.INVALID_HANDLE
    # A success clears the error.
    with sm.SpatialFile(GRID):
        assert lib.sm_last_error() == b""


@test
def freed_handle_is_an_error_not_a_crash():
    lib = sm.load()
    f = sm.SpatialFile(GRID)
    stale = f.handle
    f.close()
    k = ctypes.c_int32()
    assert lib.sm_file_kind(stale, ctypes.byref(k)) == sm.INVALID_HANDLE
    assert b"not a live handle" in lib.sm_last_error()
    assert lib.sm_file_free(stale) == sm.INVALID_HANDLE
    assert lib.sm_file_free(None) == sm.OK
    # An edit handle is not a file handle.
    e = sm.Edit()
    assert lib.sm_file_kind(e._handle, ctypes.byref(k)) == sm.INVALID_HANDLE
    e.close()


@test
def edit_values_are_range_checked():
    raises(sm.INVALID_ARGUMENT, sm.Edit, hfov_millidegrees=0)
    raises(sm.INVALID_ARGUMENT, sm.Edit, hfov_millidegrees=180000)
    raises(sm.INVALID_ARGUMENT, sm.Edit, disparity=10001)
    raises(sm.INVALID_ARGUMENT, sm.Edit, hero_eye=256)
    raises(sm.INVALID_ARGUMENT, sm.Edit, projection="toolong")
    # Empty edits and video-only fields on photos are refused.
    raises(sm.INVALID_ARGUMENT, sm.edit_photo, GRID, os.path.join(TMP, "x.heic"))
    raises(sm.INVALID_ARGUMENT, sm.edit_photo, GRID, os.path.join(TMP, "x.heic"), hero_eye="left")


@test
def photo_edit_round_trip_on_generated_file():
    out = os.path.join(TMP, "grid-edited.heic")
    report = sm.edit(GRID, output=out, baseline_um=64000, hfov_millidegrees=65000, disparity=150)
    assert report["output"] == out and report["left_item_id"] == 1
    with sm.SpatialFile(out) as f:
        assert abs(f.photo_baseline_um() - 64000) < 1e-6
        assert abs(f.photo_hfov_millidegrees() - 65000) < 5
        assert f.photo_disparity() == 150


@test
def in_place_photo_edit():
    copy = os.path.join(TMP, "inplace.heic")
    shutil.copy(GRID, copy)
    sm.edit_photo(copy, baseline_um=70000)
    with sm.SpatialFile(copy) as f:
        assert abs(f.photo_baseline_um() - 70000) < 1e-6


@test
def video_edit_refused_on_2d_movie():
    need(MOVIE_2D)
    with sm.SpatialFile(MOVIE_2D) as f:
        assert f.kind == "movie"
        assert f.video_classification() in ("2d", "no-video")
        assert f.video_baseline_um() is None
    raises(sm.NOT_APPLICABLE, sm.edit_video, MOVIE_2D, os.path.join(TMP, "x.mp4"), baseline_um=1000)
    assert not os.path.exists(os.path.join(TMP, "x.mp4"))


@test
def vision_pro_photo():
    need(VISION_PRO)
    with sm.SpatialFile(VISION_PRO) as f:
        assert f.kind == "image" and f.is_spatial
        assert abs(f.photo_baseline_um() - 63774) < 1, f.photo_baseline_um()
        assert f.photo_hfov_millidegrees() > 0
        assert f.photo_size()[0] > 0
        assert abs(f.info()["spatial_photo"]["baseline_mm"] - 63.774) < 1e-9


@test
def spatial_video_read_and_edit():
    need(SPATIAL_VIDEO)
    with sm.SpatialFile(SPATIAL_VIDEO) as f:
        assert f.kind == "movie"
        assert f.video_classification() == "spatial-video"
        assert f.video_baseline_um() and f.video_hfov_millidegrees()
    out = os.path.join(TMP, "video-edited.mp4")
    report = sm.edit_video(SPATIAL_VIDEO, output=out, baseline_um=42000, hfov_millidegrees=71500, disparity=-200, hero_eye="right")
    assert report["output"] == out
    with sm.SpatialFile(out) as f:
        assert f.video_baseline_um() == 42000
        assert f.video_hfov_millidegrees() == 71500
        assert f.video_disparity() == -200
        assert f.video_hero_eye() == 2


def write_png(path, w, h, pixel):
    """A small RGB PNG written with zlib only (no imaging library needed)."""
    import struct
    import zlib
    raw = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(w)) for y in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@test
def convert_photo_and_split():
    if not {"convert_photo", "split"} <= sm.capabilities():
        raise Skip("photo conversion not built")
    sbs = os.path.join(TMP, "sbs.png")
    write_png(sbs, 128, 64, lambda x, y: ((x * 2) % 256, (y * 4) % 256, 200 if x < 64 else 40))
    out = os.path.join(TMP, "converted.heic")
    stages = []
    report = sm.convert_photo(sbs, out, {"baseline_mm": 62.5, "hfov_degrees": 58, "quality": 60},
                              progress=lambda f, s: stages.append(s) and False)
    assert report["width"] == 64 and report["baseline_source"] == "--baseline", report
    assert stages[0] == "load" and stages[-1] == "done", stages
    with sm.SpatialFile(out) as f:
        assert f.is_spatial and f.photo_size() == (64, 64)
        assert abs(f.photo_baseline_um() - 62500) < 1e-6
        assert abs(f.photo_hfov_millidegrees() - 58000) < 5
    left, right = os.path.join(TMP, "l.png"), os.path.join(TMP, "r.jpg")
    sm.split(out, left, right, {"quality": 90})
    assert os.path.getsize(left) > 0 and os.path.getsize(right) > 0
    # Cancelling before the write leaves no output.
    never = os.path.join(TMP, "never.heic")
    raises(sm.CANCELLED, sm.convert_photo, sbs, never, None, lambda f, s: s == "write")
    assert not os.path.exists(never)
    raises(sm.INVALID_ARGUMENT, sm.convert_photo, sbs, never, {"qualty": 5})
    raises(sm.INVALID_ARGUMENT, sm.convert_photo, sbs, never, {"quality": "high"})


@test
def unbuilt_operations_say_so():
    caps = sm.capabilities()
    assert "validate" in caps
    with sm.SpatialFile(GRID) as f:
        report = sm.validate(f, {"pixels": False})
        assert "SV-PHOTO" in (report if isinstance(report, str) else str(report))
        raises(sm.INVALID_ARGUMENT, sm.validate, f, {"strict": True})
    # A frame-packed clip converts; an undecodable 2D movie is an error and writes nothing.
    sbs = os.path.join(ROOT, "Conformance", "files", "sample_sbs_320x96.y4m")
    report = sm.convert_video(sbs, os.path.join(TMP, "sbs.mov"), {"preset": "ultrafast"})
    parsed = report if isinstance(report, dict) else json.loads(report)
    assert parsed["frames"] == 30, parsed
    try:
        sm.convert_video(MOVIE_2D, os.path.join(TMP, "c.mp4"))
        raise AssertionError("converting an undecodable movie should fail")
    except sm.SpatialMediaError as e:
        assert e.message
    assert not os.path.exists(os.path.join(TMP, "c.mp4"))
    # Argument errors come first.
    raises(sm.INVALID_ARGUMENT, sm.convert_photo, GRID, GRID)
    flag = ctypes.c_int32(1)
    raises(sm.CANCELLED, sm.convert_video, GRID, os.path.join(TMP, "c.mp4"), None, None, flag)


@test
def threads_share_a_handle():
    errors = []
    with sm.SpatialFile(GRID) as f:
        def work():
            try:
                for _ in range(50):
                    assert f.photo_eye_items() == (1, 2)
                    assert f.info()["spatial_photo"]["group_id"] > 0
            except Exception as e:  # noqa: BLE001
                errors.append(e)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors


def main():
    passed = failed = skipped = 0
    print(f"library: {sm.load()._path}")
    for fn in tests:
        try:
            fn()
        except Skip as s:
            skipped += 1
            print(f"skip {fn.__name__}: {s}")
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"FAIL {fn.__name__}")
            traceback.print_exc()
        else:
            passed += 1
            print(f"ok   {fn.__name__}")
    shutil.rmtree(TMP, ignore_errors=True)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
