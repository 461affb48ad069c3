"""The `--json` output of `info` and `validate` against the versioned JSON Schemas in Specs/schemas/.

Through the Python package (the C ABI returns the same objects as the command line), and through the
command line itself when SPATIALMEDIA_CLI names a built `spatial-media` (scripts/sdk-check.sh sets it).
Every file of ../shared/corpus is checked when the corpus is present.
"""
import json
import os
import subprocess

import pytest

import spatialmedia as sm
from conftest import CORPUS, FILES, GRID, ROOT, VISION_PRO, need

jsonschema = pytest.importorskip("jsonschema")
SCHEMAS = os.path.join(ROOT, "Specs", "schemas")
CLI = os.environ.get("SPATIALMEDIA_CLI")


def schema(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


INFO = schema("info.v1.schema.json")
VALIDATE = schema("validate.v1.schema.json")


def corpus_files():
    if not os.path.isdir(CORPUS):
        return []
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(CORPUS) for f in fs if not f.startswith("."))


def errors(validator, obj):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)][:5]


def test_schemas_are_versioned():
    for v, name in ((INFO, "info"), (VALIDATE, "validate")):
        assert v.schema["$id"].endswith(f"/{name}.v1.schema.json")
        assert "version 1" in v.schema["title"]


def test_info_of_every_readable_file_matches_the_schema():
    checked = 0
    for path in [os.path.join(FILES, f) for f in sorted(os.listdir(FILES))] + corpus_files():
        try:
            f = sm.open(path)
        except sm.SpatialMediaError:
            continue
        with f:
            info = f.info()
        assert not errors(INFO, info), (path, errors(INFO, info))
        checked += 1
    assert checked >= 5


def test_schema_rejects_what_it_does_not_describe():
    with sm.open(GRID) as f:
        info = f.info()
    assert errors(INFO, {**info, "surprise": 1})
    broken = json.loads(json.dumps(info))
    broken["spatial_photo"]["left"]["width"] = "wide"
    assert errors(INFO, broken)
    report = sm.validate(GRID, pixels=False).raw
    assert errors(VALIDATE, {**report, "exit_code": 7})
    assert errors(VALIDATE, {k: v for k, v in report.items() if k != "findings"})


def test_validation_reports_match_the_schema():
    paths = [GRID, os.path.join(FILES, "movie_moov_first.mp4"), os.path.join(FILES, "sample_sbs_320x96.y4m")]
    for path in paths + corpus_files():
        report = sm.validate(path, pixels=False).raw
        assert not errors(VALIDATE, report), (path, errors(VALIDATE, report))


def test_validation_report_with_measured_geometry_matches_the_schema():
    report = sm.validate(need(VISION_PRO)).raw
    assert report["geometry"] and report["geometry"][0]["measured"] is True
    assert not errors(VALIDATE, report), errors(VALIDATE, report)


@pytest.mark.skipif(not CLI, reason="SPATIALMEDIA_CLI (a built spatial-media) not given")
def test_command_line_json_matches_the_schemas(tmp_path):
    files = [GRID, os.path.join(FILES, "movie_moov_first.mp4"), os.path.join(ROOT, "README.md")]
    out = subprocess.run([CLI, "info", "--json", *files], capture_output=True, text=True)
    assert out.returncode == 2, out.stderr  # README.md is not media
    arr = json.loads(out.stdout)
    assert isinstance(arr, list) and len(arr) == 3 and "error" in arr[2]
    assert not errors(INFO, arr), errors(INFO, arr)
    one = json.loads(subprocess.run([CLI, "info", "--json", GRID], capture_output=True, text=True).stdout)
    assert not errors(INFO, one)
    out = subprocess.run([CLI, "validate", "--json", "--no-pixels", FILES], capture_output=True, text=True)
    reports = json.loads(out.stdout)
    assert isinstance(reports, list) and len(reports) >= 5
    assert not errors(VALIDATE, reports), errors(VALIDATE, reports)
