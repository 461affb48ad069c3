"""The Dask segment-conversion example on a LocalCluster of two workers, against a one-process conversion.

Run by examples/dask/run-tests.sh. A 96-frame side-by-side Y4M clip (64×64 per eye) is made here in pure
Python; it is converted in 4 segments of whole GOPs (keyint 24) on the cluster and joined, then in one process
with the same settings; both views of the two files must decode to the same frames (FFmpeg ≥ 7.1 frame md5:
SPATIALMEDIA_FFMPEG, else the repository's .tools/bin/ffmpeg or the oracle environment's FFmpeg 9; skipped
cleanly without one).
"""
import glob
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import convert_segments as cs  # noqa: E402

pytest.importorskip("dask.distributed")
import spatialmedia  # noqa: E402

W, H, FRAMES = 64, 64, 96
# Segments are coded by the two-encode assembly (the multiview encoder has one rate control across a whole clip), so
# the one-process conversion is pinned to it too: the same path, the same frames. The clip is a 64×64-per-eye ramp,
# too small and too regular for the layout to be recognised from its pixels, so it is stated, as a user would.
OPTIONS = {"qp": 30, "keyint": 24, "bframes": 3, "preset": "ultrafast", "encode_path": "assembled", "layout": "sbs"}


def ffmpeg_for_mvhevc():
    candidates = [os.environ.get("SPATIALMEDIA_FFMPEG", ""), os.path.join(ROOT, ".tools", "bin", "ffmpeg")]
    candidates += sorted(glob.glob(os.path.join(ROOT, ".venv-oracles", "lib", "python3*", "site-packages",
                                                "imageio_ffmpeg", "binaries", "ffmpeg-*")))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            out = subprocess.run([c, "-hide_banner", "-version"], capture_output=True, text=True)
            first = out.stdout.split("\n", 1)[0]
            # "ffmpeg version 9.0.2 …" / "ffmpeg version n7.1 …": MV-HEVC decoding came with 7.1.
            try:
                version = first.split("version", 1)[1].strip().lstrip("n").split("-")[0].split(".")
                if (int(version[0]), int(version[1] if len(version) > 1 else 0)) >= (7, 1):
                    return c
            except (IndexError, ValueError):
                continue
    return None


def write_clip(path, frames=FRAMES):
    """Side by side: the left eye a moving diagonal ramp, the right eye the same shifted by 3 pixels plus a
    moving square; 8-bit 4:2:0 Y4M at 24 fps."""
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{2 * W} H{H} F24:1 Ip A1:1 C420jpeg\n".encode())
        for t in range(frames):
            y = bytearray(2 * W * H)
            for row in range(H):
                base = row * 2 * W
                for x in range(W):
                    v = (x + row + 2 * t) * 3 & 0xFF
                    y[base + x] = v
                    r = (x + 3 + row + 2 * t) * 3 & 0xFF
                    sq = (t + 10) % W
                    y[base + W + x] = 235 if sq <= x < sq + 12 and 20 <= row < 32 else r
            u = bytes((64 + t) & 0xFF for _ in range(W * H // 2))
            v = bytes((192 - t) & 0xFF for _ in range(W * H // 2))
            f.write(b"FRAME\n" + bytes(y) + u + v)


def test_segments_on_two_workers_join_to_the_one_process_conversion(client, tmp_path):
    clip = str(tmp_path / "sbs.y4m")
    write_clip(clip)
    joined = str(tmp_path / "joined.mov")
    summary = cs.convert_on_cluster(clip, joined, client, 4, str(tmp_path), OPTIONS)
    # Four segments of one 24-frame GOP each, encoded on both workers, joined into 96 frames; no files left over.
    assert [s["frames"] for s in summary["segments"]] == [24, 24, 24, 24]
    assert len({s["worker_pid"] for s in summary["segments"]}) == 2
    assert summary["frames"] == FRAMES
    assert sorted(os.listdir(tmp_path)) == ["joined.mov", "sbs.y4m"]
    with spatialmedia.open(joined) as f:
        assert f.stereo.baseline_um is not None
    one = str(tmp_path / "one.mov")
    report = spatialmedia.convert(clip, one, **OPTIONS)
    assert report.frames == FRAMES
    # Same audio decision both ways (the Y4M has none: a silent track when FFmpeg is there, else none).
    assert len(summary["audio"]) == len(report.raw["audio"])
    print(f"\n96 frames in 4 segments on 2 workers: {summary['seconds']:.2f} s (join {summary['join_seconds']:.3f} s)")
    ffmpeg = ffmpeg_for_mvhevc()
    if ffmpeg is None:
        pytest.skip("no FFmpeg ≥ 7.1 to decode both views (set SPATIALMEDIA_FFMPEG)")
    for view in ("left", "right"):
        a, b = cs.frame_md5s(ffmpeg, one, view), cs.frame_md5s(ffmpeg, joined, view)
        assert len(a) == FRAMES
        assert a == b, f"the {view} view differs from the one-process conversion"


def test_join_refuses_an_incomplete_set(client, tmp_path):
    clip = str(tmp_path / "sbs.y4m")
    write_clip(clip, frames=48)
    segs = []
    for k in (1, 2):
        p = str(tmp_path / f"s{k}.mov")
        spatialmedia.convert(clip, p, segment=(k, 2), **OPTIONS)
        segs.append(p)
    with pytest.raises(spatialmedia.SpatialMediaError, match="segment 2 of 2 missing"):
        spatialmedia.concat(segs[:1], str(tmp_path / "out.mov"), no_audio=True)
    assert not os.path.exists(tmp_path / "out.mov")
    with pytest.raises(spatialmedia.SpatialMediaError):
        spatialmedia.convert(clip, str(tmp_path / "x.mov"), segment=(3, 2), **OPTIONS)
    r = spatialmedia.concat(list(reversed(segs)), str(tmp_path / "out.mov"), no_audio=True)
    assert (r.frames, r.segments, r.audio) == (48, 2, [])
