"""The Dask directory-validation example on a LocalCluster of two workers, against the command line.

Run by examples/dask/run-tests.sh (which makes a throw-away virtual environment with the wheel, dask and
distributed). Needs SPATIALMEDIA_CLI (a built spatial-media) for the comparison and ../shared/corpus
(SPATIALMEDIA_SHARED) for the data; skips cleanly without them.
"""
import json
import os
import re
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import validate_directory as vd  # noqa: E402

pytest.importorskip("dask.distributed")
CORPUS = os.path.join(os.environ.get("SPATIALMEDIA_SHARED", os.path.join(ROOT, "..", "shared")), "corpus")
CLI = os.environ.get("SPATIALMEDIA_CLI")


def verdict(report):
    """What a pipeline acts on: kind, spatial or not, worst severity, exit code, and each finding's rule."""
    return (report["kind"], report["spatial"], report["worst"], report["exit_code"],
            sorted((f["rule"], f["severity"]) for f in report["findings"]))


def cli_reports(directories, pixels):
    args = [CLI, "validate", "--json"] + ([] if pixels else ["--no-pixels"]) + directories
    start = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    assert out.returncode in (0, 1, 2), out.stderr[-2000:]
    data = json.loads(out.stdout)
    return (data if isinstance(data, list) else [data]), seconds


def compare(root, client, pixels, label):
    """Validates the inputs under `root` on the cluster and with the CLI given `root`: same inputs, same verdicts."""
    inputs = vd.list_inputs([root])
    files = [i if isinstance(i, str) else i[0] for i in inputs]
    start = time.perf_counter()
    reports = vd.validate_on_cluster(inputs, client, pixels=pixels)
    dask_seconds = time.perf_counter() - start
    assert [r["file"] for r in reports] == files
    cli, cli_seconds = cli_reports([root], pixels)
    assert [r["file"] for r in cli] == files
    by_file = {r["file"]: r for r in cli}
    differ = [(f, verdict(r), verdict(by_file[f])) for f, r in zip(files, reports) if verdict(r) != verdict(by_file[f])]
    assert not differ, differ[:3]
    print(f"\n{label}: {len(files)} files, same verdicts; Dask LocalCluster(2 workers) {dask_seconds:.2f} s "
          f"= {len(files) / dask_seconds:.1f} files/s; CLI {cli_seconds:.2f} s = {len(files) / cli_seconds:.1f} files/s")
    return reports


def test_lists_inputs_like_the_command_line(tmp_path):
    jpeg = bytes([0xFF, 0xD8, 0xFF, 0xE0]) + bytes(12)
    (tmp_path / "b.heic").write_bytes(b"\0\0\0\x18ftypheic" + bytes(12))
    (tmp_path / "a_L.jpg").write_bytes(jpeg)
    (tmp_path / "a_R.jpg").write_bytes(jpeg)
    (tmp_path / "notes.txt").write_bytes(b"not media")
    (tmp_path / ".hidden.heic").write_bytes(b"\0\0\0\x18ftypheic" + bytes(12))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.mp4").write_bytes(b"\0\0\0\x18ftypisom" + bytes(12))
    inputs = vd.list_inputs([str(tmp_path)])
    assert inputs == [(str(tmp_path / "a_L.jpg"), str(tmp_path / "a_R.jpg")), str(tmp_path / "b.heic"),
                      str(tmp_path / "sub" / "c.mp4")]
    if CLI:
        cli, _ = cli_reports([str(tmp_path)], pixels=False)
        assert [r["file"] for r in cli] == [i if isinstance(i, str) else i[0] for i in inputs]


def test_small_directory_on_two_workers(client, tmp_path):
    files = vd.list_inputs([os.path.join(ROOT, "Conformance", "files")])
    reports = vd.validate_on_cluster(files, client, pixels=False)
    assert len(reports) == len(files) and all("exit_code" in r for r in reports)
    batched = vd.validate_on_cluster(files, client, pixels=False, batch=4)
    assert batched == reports
    assert {r["kind"] for r in reports} >= {"spatial-photo", "movie"} or len({r["kind"] for r in reports}) > 1
    workers = client.scheduler_info()["workers"]
    assert len(workers) == 2


@pytest.mark.skipif(not CLI, reason="SPATIALMEDIA_CLI not given")
def test_whole_corpus_metadata_verdicts_match_the_cli(client):
    if not os.path.isdir(CORPUS):
        pytest.skip(f"{CORPUS} not present")
    assert len(vd.list_inputs([os.path.abspath(CORPUS)])) > 100
    compare(os.path.abspath(CORPUS), client, pixels=False, label="corpus, --no-pixels")


@pytest.mark.skipif(not CLI, reason="SPATIALMEDIA_CLI not given")
def test_pixel_verdicts_match_the_cli(client):
    photos = os.path.join(os.path.abspath(CORPUS), "spatial-photo")
    if not os.path.isdir(photos):
        pytest.skip(f"{photos} not present")
    reports = compare(photos, client, pixels=True, label="spatial-photo, pixels measured")
    assert any(r["geometry"] for r in reports)


def test_script_end_to_end(tmp_path):
    out = tmp_path / "reports.json"
    files_dir = os.path.join(ROOT, "Conformance", "files")
    run = subprocess.run([sys.executable, os.path.join(HERE, "validate_directory.py"), files_dir, "--workers", "2",
                          "--no-pixels", "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1, 2), run.stderr[-2000:]
    assert re.search(r"validated \d+ files in .* files/s\) on LocalCluster of 2 workers", run.stderr), run.stderr[-2000:]
    reports = json.loads(out.read_text())
    assert len(reports) == len(vd.list_inputs([files_dir]))
    assert run.returncode == max(r["exit_code"] for r in reports)
