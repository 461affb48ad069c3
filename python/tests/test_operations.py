"""Issue 28: the Python package is a face over the library's operations layer — the same request as the command
line writes the same bytes, every check is the library's, and the keywords are the rows of the library's table."""
import inspect
import json
import os
import re
import subprocess
import typing

import pytest

import spatialmedia as sm
from conftest import ROOT, SBS_Y4M, need

CLI = os.environ.get("SPATIAL_MEDIA_CLI", os.path.join(ROOT, ".build", "debug", "spatial-media"))
FIXTURES = os.path.join(ROOT, "..", "shared", "fixtures")
TIMING = {"seconds", "own_cpu_seconds", "process_cpu_seconds", "peak_rss_bytes", "cpu_seconds"}


def comparable(j):
    # Where the encoder library was found (the package's tools directory for the command line, the per-user link
    # for an installed wheel) is the machine's, not the request's.
    if isinstance(j, str):
        return re.sub(r"/[^ ()]*/x265-mv/", "X265MV/", j)
    if isinstance(j, dict):
        return {k: ("OUT" if k == "output" else comparable(v)) for k, v in j.items() if k not in TIMING}
    if isinstance(j, list):
        return [comparable(x) for x in j]
    return j


def test_named_case_matches_the_command_line(tmp_path):
    """`convert SBS -o a.mov --hero right --fps 24` and convert(SBS, "b.mov", hero_eye="right", frame_rate=(24, 1))."""
    if not os.access(CLI, os.X_OK):
        pytest.skip(f"{CLI} not built")
    a, b = tmp_path / "a.mov", tmp_path / "b.mov"
    run = subprocess.run([CLI, "convert", SBS_Y4M, "-o", str(a), "--hero", "right", "--fps", "24", "--json"],
                         capture_output=True, text=True, check=True)
    report = sm.convert(SBS_Y4M, b, hero_eye="right", frame_rate=(24, 1))
    assert a.read_bytes() == b.read_bytes()
    assert comparable(json.loads(run.stdout)) == comparable(report.raw)
    assert report.raw["hero"] == "right" and report.raw["fps"] == "24/1"
    assert report.raw["output_check"]["verdict"] == "passed"


def test_reserved_hero_value_is_refused_by_the_library(tmp_path):
    movie = need(os.path.join(FIXTURES, "mvhevc_96x64_6f_spatial.mov"))
    out = tmp_path / "hero7.mov"
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.edit(movie, out, hero_eye=7)
    assert "sm_edit_set_hero_eye" in str(e.value) and "reserved" in str(e.value)
    assert not out.exists()


def test_combine_photo_output_is_spatial(tmp_path):
    pair = need(os.path.join(FIXTURES, "pair_plain.heic"))
    out = tmp_path / "combined.heic"
    report = sm.combine_photo(pair, None, out)
    assert report.raw["output_check"]["verdict"] == "passed"
    with sm.open(out) as f:
        assert f.is_spatial
    v = sm.validate(out, pixels=False)
    assert v.spatial and not v.errors, v.why_not_spatial


_TYPES = {"bool": bool, "integer": int, "number": float, "text": str}


def test_convert_keywords_are_the_librarys_table():
    table = sm.option_table("convert")
    params = inspect.signature(sm.convert).parameters
    hints = typing.get_type_hints(sm.convert)
    own = {"input", "output", "right_input", "progress", "cancel"}
    assert {row["python"] for row in table} == set(params) - own
    for row in table:
        args = typing.get_args(hints[row["python"]])
        expected = _TYPES.get(row["type"])
        if expected is not None:
            assert expected in args, (row, args)
        assert params[row["python"]].default is None, row


def test_checks_and_routing_are_the_librarys(tmp_path, sbs_png):
    # A value out of range: the library's message, the command line's wording with the JSON key.
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.convert(SBS_Y4M, tmp_path / "v.mov", crf=99)
    assert '"crf" must be between 0 and 51' in str(e.value)
    # The route follows the input, not the output's name: a photo named .mov is refused with the CLI's sentence.
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.convert(sbs_png, tmp_path / "p.mov")
    assert "must be named .heic" in str(e.value) and "photo conversion" in str(e.value)
    assert not (tmp_path / "p.mov").exists()


@pytest.mark.parametrize("job,fn", [("align", sm.align), ("fix", sm.fix)])
def test_align_and_fix_keywords_are_the_librarys_table(job, fn):
    params = inspect.signature(fn).parameters
    hints = typing.get_type_hints(fn)
    table = sm.option_table(job)
    assert {row["python"] for row in table} == set(params) - {"input", "output", "progress", "cancel"}
    for row in table:
        expected = _TYPES.get(row["type"])
        if expected is not None:
            assert expected in typing.get_args(hints[row["python"]]), (row, hints[row["python"]])
        assert params[row["python"]].default is None, row


def test_align_matches_the_command_line(tmp_path):
    """`align PHOTO -o a.heic --quality 40` and align(PHOTO, "b.heic", quality=40): one file, one report."""
    photo = need(os.path.join(FIXTURES, "pair_ster_cmin_cmex.heic"))
    if not os.access(CLI, os.X_OK):
        pytest.skip(f"{CLI} not built")
    a, b = tmp_path / "a.heic", tmp_path / "b.heic"
    run = subprocess.run([CLI, "align", photo, "-o", str(a), "--quality", "40", "--json"], capture_output=True, text=True, check=True)
    report = sm.align(photo, b, quality=40)
    assert a.read_bytes() == b.read_bytes()
    assert comparable(json.loads(run.stdout)) == comparable(report.raw)
    assert report.kind == "photo" and report.raw["job"] == "align"
    # The range is the library's, named by the keyword's key.
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.align(photo, tmp_path / "c.heic", quality=101)
    assert '"quality" must be between 0 and 100' in str(e.value)
    assert not (tmp_path / "c.heic").exists()


def test_fix_matches_the_command_line(tmp_path):
    """`fix MOVIE -o a.mov --hero right --hfov 70` and fix(MOVIE, "b.mov", hero_eye="right", hfov_degrees=70);
    fix(path) repairs in place."""
    movie = need(os.path.join(FIXTURES, "mvhevc_96x64_6f_lhvC.mov"))
    if not os.access(CLI, os.X_OK):
        pytest.skip(f"{CLI} not built")
    a, b = tmp_path / "a.mov", tmp_path / "b.mov"
    run = subprocess.run([CLI, "fix", movie, "-o", str(a), "--hero", "right", "--hfov", "70", "--json"], capture_output=True, text=True, check=True)
    report = sm.fix(movie, b, hero_eye="right", hfov_degrees=70)
    assert a.read_bytes() == b.read_bytes()
    assert comparable(json.loads(run.stdout)) == comparable(report.raw)
    assert report.changes == report.raw["repairs"] and report.changes
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.fix(movie, tmp_path / "c.mov", hero_eye="up")
    assert '"hero_eye" must be left or right' in str(e.value)
    in_place = tmp_path / "in-place.mov"
    in_place.write_bytes(open(movie, "rb").read())
    again = sm.fix(in_place)
    assert again.changes and in_place.read_bytes() != open(movie, "rb").read()


def test_validate_keywords_are_the_librarys_table():
    """Issue 42: validate is a request of the operations layer; its keywords are the rows of its name table."""
    params = inspect.signature(sm.validate).parameters
    module = vars(inspect.getmodule(sm.validate))
    hints = typing.get_type_hints(sm.validate, {**module, "SpatialFile": sm.SpatialFile})
    table = sm.option_table("validate")
    assert {row["python"] for row in table} == set(params) - {"path", "progress", "cancel"}
    for row in table:
        expected = _TYPES.get(row["type"])
        if expected is not None:
            assert expected in (typing.get_args(hints[row["python"]]) or (hints[row["python"]],)), row


def test_validate_frames_are_one_range_for_every_shell():
    """`validate --frames` and validate(frames=…) take the same range, the request's (1…1000)."""
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.validate(SBS_Y4M, pixels=False, frames=1001)
    assert "1000" in str(e.value)
    assert sm.validate(SBS_Y4M, pixels=False, frames=1000).kind != "unreadable"
    if os.access(CLI, os.X_OK):
        run = subprocess.run([CLI, "validate", "--no-pixels", "--frames", "1001", SBS_Y4M],
                             capture_output=True, text=True)
        assert run.returncode == 64 and "between 1 and 1000" in run.stderr


def test_option_refusals_are_their_own_kind(tmp_path):
    """Issue 42: a refused option is InvalidOptionError (SM_ERR_INVALID_OPTION, code "invalid-option"), still an
    InvalidArgumentError; a choice is read by the option's row and refused naming the allowed values."""
    with pytest.raises(sm.InvalidOptionError) as e:
        sm.convert(SBS_Y4M, tmp_path / "v.mov", preset="warp")
    assert '"preset" must be one of ultrafast, superfast' in str(e.value) and "invalid-option" in str(e.value)
    assert e.value.code == sm.Status.INVALID_OPTION
    with pytest.raises(sm.InvalidOptionError):
        sm.convert(SBS_Y4M, tmp_path / "v.mov", crf=99)
    with pytest.raises(sm.InvalidOptionError) as e:
        sm.convert(SBS_Y4M, tmp_path / "v.mov", layout="diagonal")
    assert '"layout" must be auto or one of sbs, tb, half-sbs, half-tb' in str(e.value)
    assert not (tmp_path / "v.mov").exists()
