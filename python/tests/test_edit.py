"""Edits, and the range check of every integer before it reaches a 32-bit C field (issue 18 item 3)."""
import ctypes
import shutil

import pytest

import spatialmedia as sm
from conftest import GRID, MOVIE_2D, SPATIAL_VIDEO, need


@pytest.mark.parametrize("fields", [
    {"baseline_um": 10**12},            # would wrap to 3 567 587 328 µm in a uint32
    {"baseline_um": 2**32},
    {"baseline_um": -1},
    {"hfov_millidegrees": -5},          # would become 4 294 967 291
    {"hfov_millidegrees": 0},
    {"hfov_millidegrees": 180_000},
    {"hfov_millidegrees": 10**10},
    {"disparity": 10_001},
    {"disparity": -2**31 - 1},
    {"disparity": 2**40},
    {"hero_eye": 256},
    {"hero_eye": -1},
    {"hero_eye": "center"},
    {"baseline_um": 64000.5},           # stored units are integers
    {"baseline_um": True},
    {"baseline_um": "64000"},
    {"baseline_mm": 10**12},
    {"baseline_mm": float("nan")},
    {"hfov_degrees": -1.0},
    {"hfov_degrees": 180},
    {"disparity_percent": 100.01},
    {"baseline_um": 64000, "baseline_mm": 64},
    {"projection": "toolong"},
    {"projection": 1234},
    {"remove": ["nonsense"]},
    {"photo_form": "jpeg"},
])
def test_out_of_range_values_raise_before_anything_is_written(tmp_path, fields):
    out = tmp_path / "out.mp4"
    with pytest.raises(sm.InvalidArgumentError):
        sm.edit(MOVIE_2D, out, **fields)
    assert not out.exists()


def test_video_baseline_of_10_to_the_12_does_not_wrap(tmp_path):
    src = need(SPATIAL_VIDEO)
    out = tmp_path / "v.mp4"
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.edit(src, out, baseline_um=10**12)
    assert "0…4294967295" in str(e.value)
    assert not out.exists()
    with sm.open(src) as f:
        assert f.stereo.baseline_um == 19240  # the input is untouched


def test_photo_baseline_above_int32_is_refused_by_the_library(tmp_path):
    # Python lets a uint32 through; the C ABI knows photos store a signed position and refuses it.
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.edit(GRID, tmp_path / "x.heic", baseline_um=2**31)
    assert "2147483647" in str(e.value)


def test_c_abi_itself_rejects_out_of_range_fields():
    lib = sm._native.load()
    h = ctypes.c_void_p()
    assert lib.sm_edit_create(ctypes.byref(h)) == 0
    try:
        assert lib.sm_edit_set_hfov_millidegrees(h, 0) == sm.Status.INVALID_ARGUMENT
        assert lib.sm_edit_set_hfov_millidegrees(h, 0xFFFF_FFFB) == sm.Status.INVALID_ARGUMENT  # -5 as uint32
        assert lib.sm_edit_set_disparity(h, 10_001) == sm.Status.INVALID_ARGUMENT
        assert lib.sm_edit_set_hero_eye(h, 256) == sm.Status.INVALID_ARGUMENT
        assert lib.sm_edit_set_hfov_millidegrees(h, 65_000) == sm.Status.OK
    finally:
        lib.sm_edit_free(h)


def test_empty_edit_and_video_fields_on_photo_are_refused(tmp_path):
    with pytest.raises(sm.InvalidArgumentError):
        sm.edit(GRID, tmp_path / "x.heic")
    with pytest.raises(sm.InvalidArgumentError):
        sm.edit(GRID, tmp_path / "x.heic", hero_eye="left")


def test_photo_edit_round_trip_in_stored_units(tmp_path):
    out = tmp_path / "grid-edited.heic"
    report = sm.edit(GRID, out, baseline_um=64000, hfov_millidegrees=65000, disparity=150)
    assert isinstance(report, sm.EditReport)
    assert report.output == str(out) and report.changes and report.raw["left_item_id"] == 1
    with sm.open(out) as f:
        s = f.stereo
        assert s.baseline_um == pytest.approx(64000)
        assert s.hfov_millidegrees == pytest.approx(65000, abs=5)
        assert s.disparity == 150


def test_photo_edit_in_human_units_in_place(tmp_path):
    copy = tmp_path / "inplace.heic"
    shutil.copy(GRID, copy)
    sm.edit(copy, baseline_mm=70.5, hfov_degrees=61.25, disparity_percent=-1.5)
    with sm.open(copy) as f:
        s = f.stereo
        assert s.baseline_mm == pytest.approx(70.5)
        assert s.hfov_degrees == pytest.approx(61.25, abs=0.005)
        assert s.disparity == -150


def test_video_edit_refused_on_2d_movie(tmp_path):
    out = tmp_path / "x.mp4"
    with pytest.raises(sm.NotApplicableError) as e:
        sm.edit(MOVIE_2D, out, baseline_um=1000)
    assert e.value.code == sm.Status.NOT_APPLICABLE
    assert not out.exists()


def test_spatial_video_edit(tmp_path):
    out = tmp_path / "video-edited.mp4"
    report = sm.edit(need(SPATIAL_VIDEO), out, baseline_mm=42, hfov_degrees=71.5, disparity=-200, hero_eye="right")
    assert report.output == str(out) and report.strategy
    with sm.open(out) as f:
        s = f.stereo
        assert (s.baseline_um, s.hfov_millidegrees, s.disparity, s.hero_eye) == (42000, 71500, -200, "right")
