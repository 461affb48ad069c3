"""convert, split, validate: dataclass reports, progress callbacks, cancellation, the GIL released."""
import os
import threading

import pytest

import spatialmedia as sm
from conftest import GRID, MOVIE_2D, SBS_Y4M, VISION_PRO, need


def test_convert_photo_then_split(tmp_path, sbs_png):
    out = tmp_path / "converted.heic"
    stages = []
    report = sm.convert(sbs_png, out, layout="sbs", baseline_mm=62.5, hfov_degrees=58, quality=60,
                        progress=lambda f, s: stages.append((s, f)))
    assert isinstance(report, sm.ConvertReport) and report.kind == "photo"
    assert report.raw["width"] == 64 and report.raw["baseline_source"] == "--baseline", report.raw
    assert stages[0][0] == "load" and stages[-1] == ("done", 1.0), stages
    assert all(0 <= f <= 1 for _, f in stages)
    with sm.open(out) as f:
        assert f.is_spatial and (f.photo_eyes.width, f.photo_eyes.height) == (64, 64)
        assert f.stereo.baseline_um == pytest.approx(62500)
        assert f.stereo.hfov_millidegrees == pytest.approx(58000, abs=5)
    left, right, sbs = tmp_path / "l.png", tmp_path / "r.jpg", tmp_path / "sbs.jpg"
    split = sm.split(out, left, right, sbs_output=sbs, quality=90)
    assert isinstance(split, sm.SplitReport) and split.sbs_output == str(sbs)
    assert left.stat().st_size > 0 and right.stat().st_size > 0 and sbs.stat().st_size > 0


def test_photo_conversion_range_checks(tmp_path, sbs_png):
    never = tmp_path / "never.heic"
    for kw in ({"baseline_mm": 5e6}, {"baseline_um": 2**31}, {"hfov_degrees": -5}, {"quality": 101},
               {"disparity_percent": 1e9}, {"crf": 20}, {"bit_depth": 12}, {"threads": -1}):
        with pytest.raises(sm.InvalidArgumentError):
            sm.convert(sbs_png, never, **kw)
    assert not never.exists()


def test_c_abi_checks_photo_options_before_decoding(tmp_path, sbs_png):
    # Straight through the C ABI: numbers that do not fit the photo's 32-bit fields are refused.
    import ctypes
    lib = sm._native.load()
    out = ctypes.c_void_p()
    never = str(tmp_path / "never.heic").encode()
    for options in (b'{"baseline_mm": 5000000}', b'{"baseline_mm": -1}', b'{"hfov_degrees": 180}',
                    b'{"hfov_degrees": -0.5}', b'{"disparity_percent": 100.5}', b'{"quality": 1e12}'):
        status = lib.sm_convert_photo(str(sbs_png).encode(), never, options, sm._native.PROGRESS(), None, None,
                                      ctypes.byref(out))
        assert status == sm.Status.INVALID_OPTION, (options, status, lib.sm_last_error())
    assert not os.path.exists(never)


def test_progress_returning_true_cancels_and_writes_nothing(tmp_path, sbs_png):
    never = tmp_path / "never.heic"
    with pytest.raises(sm.CancelledError) as e:
        sm.convert(sbs_png, never, layout="sbs", progress=lambda f, s: s == "write")
    assert e.value.code == sm.Status.CANCELLED
    assert not never.exists()


def test_exception_in_progress_callback_cancels_and_is_reraised(tmp_path, sbs_png):
    never = tmp_path / "never.heic"

    def boom(fraction, stage):
        if stage == "encode":
            raise KeyError("from the callback")
    with pytest.raises(KeyError, match="from the callback"):
        sm.convert(sbs_png, never, layout="sbs", progress=boom)
    assert not never.exists()


def test_cancel_token_set_before_the_call(tmp_path):
    token = sm.CancelToken()
    token.cancel()
    assert token.cancelled
    with pytest.raises(sm.CancelledError):
        sm.convert(SBS_Y4M, tmp_path / "c.mov", preset="ultrafast", cancel=token)
    assert not (tmp_path / "c.mov").exists()


def test_video_conversion_with_progress_and_cancel_from_another_thread(tmp_path):
    out = tmp_path / "sbs.mov"
    fractions = []
    report = sm.convert(SBS_Y4M, out, preset="ultrafast", baseline_mm=63, hfov_degrees=60,
                        progress=lambda f, s: fractions.append((s, f)) and None)
    assert report.kind == "video" and report.frames == 30, report
    assert any(s == "encode" for s, _ in fractions) and fractions[-1] == ("done", 1.0)
    with sm.open(out) as f:
        assert f.video_class is sm.VideoClass.SPATIAL
        assert (f.stereo.baseline_um, f.stereo.hfov_millidegrees) == (63000, 60000)
    # A token cancelled by another thread while frames are being encoded.
    token = sm.CancelToken()
    never = tmp_path / "never.mov"

    def progress(fraction, stage):
        if stage == "encode":
            threading.Thread(target=token.cancel).start()
    with pytest.raises(sm.CancelledError):
        sm.convert(SBS_Y4M, never, preset="ultrafast", progress=progress, cancel=token)
    assert not never.exists()


def test_native_calls_release_the_gil(tmp_path):
    """While a conversion runs natively (between its first and last progress callbacks) another Python
    thread keeps running. With the GIL held it could only run inside the short callbacks."""
    state = {"inside": False, "count": 0}
    started = threading.Event()
    finished = threading.Event()

    def counter():
        started.wait()
        while not finished.is_set():
            if state["inside"]:
                state["count"] += 1

    def progress(fraction, stage):
        if stage in ("convert", "encode") and not state["inside"]:
            state["inside"] = True
            started.set()
        if stage == "done":
            state["inside"] = False

    t = threading.Thread(target=counter)
    t.start()
    try:
        sm.convert(SBS_Y4M, tmp_path / "gil.mov", preset="ultrafast", progress=progress)
    finally:
        started.set()
        finished.set()
        t.join()
    assert state["count"] > 10_000, state


def test_undecodable_movie_conversion_fails_and_writes_nothing(tmp_path):
    with pytest.raises(sm.SpatialMediaError) as e:
        sm.convert(MOVIE_2D, tmp_path / "c.mp4")
    assert e.value.message
    assert not (tmp_path / "c.mp4").exists()
    with pytest.raises(sm.InvalidArgumentError):
        sm.convert(GRID, GRID)


def test_validate_returns_a_dataclass_report():
    report = sm.validate(GRID, pixels=False)
    assert isinstance(report, sm.ValidationReport)
    assert report.file == GRID and report.kind and report.exit_code in (0, 1)
    assert all(isinstance(f, sm.Finding) for f in report.findings)
    assert any(f.rule.startswith("SV-PHOTO") for f in report.findings), report.findings
    assert report.ok == (report.exit_code == 0)
    with sm.open(GRID) as f:
        same = f.validate(pixels=False)
        assert [x.rule for x in same.findings] == [x.rule for x in report.findings]
    with pytest.raises(sm.InvalidArgumentError):
        sm.validate(GRID, layout="diagonal")
    with pytest.raises(sm.InvalidArgumentError):
        sm.validate(GRID, frames=0)


def test_validate_unreadable_and_non_isobmff_inputs_like_the_cli(tmp_path, sbs_png):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"this is not a media file at all\n" * 4)
    report = sm.validate(junk, pixels=False)
    assert report.exit_code == 2 and report.kind == "unreadable", report
    png = sm.validate(sbs_png, layout="sbs")  # not ISOBMFF: the CLI accepts it, so does validate()
    assert png.exit_code in (0, 1) and png.kind != "unreadable", png


def test_validate_vision_pro_with_pixels():
    stages = []
    report = sm.validate(need(VISION_PRO), progress=lambda f, s: stages.append(s))
    assert report.spatial and report.kind == "spatial-photo"
    assert any(f.rule == "SV-GEOM-012" for f in report.findings)
    assert stages[0] == "validate" and stages[-1] == "done"
