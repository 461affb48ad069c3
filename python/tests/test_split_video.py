"""Issue 33: ``split`` is ``spatial-media split`` for every stereo input, movies included (through ``sm_split``, a
shell over the library's one split): a frame-packed movie and an MV-HEVC movie split to .mp4 eyes, .hevc outputs
copied. The inputs are made by the library itself from the bundled side-by-side Y4M (320x96, 30 frames)."""
import inspect
import typing

import pytest

import spatialmedia as sm
from conftest import SBS_Y4M

_TYPES = {"bool": bool, "integer": int, "number": float, "text": str}


@pytest.fixture(scope="module")
def spatial_movie(tmp_path_factory):
    """An MV-HEVC movie with independent layers (the assembled encode path), 160x96 per eye."""
    out = tmp_path_factory.mktemp("split-video") / "spatial.mov"
    sm.convert(SBS_Y4M, out, preset="ultrafast", encode_path="assembled", baseline_mm=64, hfov_degrees=60)
    return out


def test_split_keywords_are_the_librarys_table():
    params = inspect.signature(sm.split).parameters
    hints = typing.get_type_hints(sm.split)
    table = sm.option_table("split")
    assert {row["python"] for row in table} == set(params) - {"input", "progress", "cancel"}
    for row in table:
        expected = _TYPES.get(row["type"])
        if expected is not None:
            assert expected in typing.get_args(hints[row["python"]]), (row, hints[row["python"]])
        if row["key"] not in ("left_output", "right_output"):
            assert params[row["python"]].default is None, row


def test_mvhevc_movie_to_mp4_eyes(tmp_path, spatial_movie):
    left, right = tmp_path / "l.mp4", tmp_path / "r.mp4"
    stages = []
    report = sm.split(spatial_movie, left, right, preset="ultrafast", progress=lambda f, s: stages.append((s, f)))
    assert report.raw["route"] == "video" and report.raw["frames"] == 30, report.raw
    assert report.raw["output_check"]["verdict"] == "passed", report.raw["output_check"]
    assert report.left_output == str(left) and left.stat().st_size > 0 and right.stat().st_size > 0
    assert stages[-1] == ("done", 1.0) and all(0 <= f <= 1 for _, f in stages), stages


def test_mvhevc_movie_to_hevc_eyes_is_a_copy(tmp_path, spatial_movie):
    report = sm.split(spatial_movie, tmp_path / "l.hevc", tmp_path / "r.hevc")
    assert "copied both eyes" in report.raw["method"], report.raw
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.split(spatial_movie, tmp_path / "l2.hevc", tmp_path / "r2.hevc", crf=20)
    assert '"crf"' in str(e.value)
    assert not (tmp_path / "l2.hevc").exists()


def test_frame_packed_movie_to_eyes(tmp_path, spatial_movie):
    # A side-by-side movie written by split itself (only the packed file: no eyes), then split with layout="sbs".
    packed = tmp_path / "sbs.mp4"
    sm.split(spatial_movie, None, None, sbs_output=packed, preset="ultrafast", no_audio=True)
    left, right = tmp_path / "l.mp4", tmp_path / "r.mp4"
    report = sm.split(packed, left, right, layout="sbs", preset="ultrafast", crf=30)
    assert report.raw["route"] == "video" and report.raw["frames"] == 30, report.raw
    assert report.raw["output_check"]["verdict"] == "passed", report.raw["output_check"]
    assert left.stat().st_size > 0 and right.stat().st_size > 0
    with pytest.raises(sm.InvalidArgumentError):
        sm.split(packed, tmp_path / "x.mp4", tmp_path / "y.mp4", quality=90)


def test_mvhevc_movie_to_over_under_names_it_in_the_report(tmp_path, spatial_movie):
    ou = tmp_path / "ou.mp4"
    report = sm.split(spatial_movie, None, None, ou_output=ou, preset="ultrafast", no_audio=True)
    assert report.ou_output == str(ou) and report.sbs_output is None, report
    assert ou.stat().st_size > 0
