"""Opening files: kinds, typed stereo parameters, info JSON, errors with code, offset and box path."""
import os
import threading

import pytest

import spatialmedia as sm
from conftest import GRID, MOVIE_2D, SPATIAL_VIDEO, VISION_PRO, need


def test_generated_grid_photo():
    with sm.open(GRID) as f:
        assert f.kind is sm.Kind.IMAGE
        assert f.is_spatial
        assert f.photo_eyes == sm.PhotoEyes(left_item=1, right_item=2, width=f.photo_eyes.width, height=f.photo_eyes.height)
        info = f.info()
        assert info["file"] == GRID
        assert info["spatial_photo"]["is_spatial_photo"] is True
        assert f.video_class is None and f.video_stereo() is None
        with open(GRID, "rb") as fh:
            assert f.serialize() == fh.read()


def test_memory_buffer_matches_path_except_file_key():
    with open(GRID, "rb") as fh:
        data = fh.read()
    with sm.open(GRID) as a, sm.SpatialFile.from_bytes(data) as b:
        ia, ib = a.info(), b.info()
        assert "file" not in ib
        ia.pop("file")
        assert ia == ib


def test_vision_pro_photo_stereo_in_stored_and_human_units():
    with sm.open(need(VISION_PRO)) as f:
        assert f.kind is sm.Kind.IMAGE and f.is_spatial
        s = f.stereo
        assert isinstance(s, sm.StereoParameters)
        assert s.baseline_um == pytest.approx(63774, abs=0.5)
        assert s.baseline_mm == pytest.approx(63.774, abs=1e-3)
        assert s.hfov_degrees == pytest.approx(80.0, abs=0.01)
        assert s.disparity is not None and s.disparity_percent == pytest.approx(s.disparity / 100)
        assert s.hero_eye is None
        eyes = f.photo_eyes
        assert (eyes.left_item, eyes.right_item, eyes.width, eyes.height) == (26, 52, 2560, 2560)
        assert f.info()["spatial_photo"]["baseline_mm"] == pytest.approx(63.774)


def test_spatial_video_stereo():
    with sm.open(need(SPATIAL_VIDEO)) as f:
        assert f.kind is sm.Kind.MOVIE
        assert f.video_class is sm.VideoClass.SPATIAL
        s = f.stereo
        assert (s.baseline_um, s.hfov_millidegrees, s.disparity, s.hero_eye) == (19240, 63400, 200, "left")
        assert isinstance(s.baseline_um, int)
        assert (s.baseline_mm, s.hfov_degrees, s.disparity_percent) == (19.24, 63.4, 2.0)


def test_2d_movie_has_no_stereo_values():
    with sm.open(MOVIE_2D) as f:
        assert f.kind is sm.Kind.MOVIE
        assert f.video_class in (sm.VideoClass.MONO, sm.VideoClass.NO_VIDEO)
        s = f.stereo
        assert s is not None and s.baseline_um is None and s.hfov_millidegrees is None
        assert f.photo_eyes is None and f.photo_stereo() is None


def test_missing_file_raises_file_access_error(tmp_path):
    with pytest.raises(sm.FileAccessError) as e:
        sm.open(tmp_path / "missing.mp4")
    assert e.value.code == sm.Status.IO and e.value.name == "SM_ERR_IO"
    assert isinstance(e.value, OSError) and "missing.mp4" in str(e.value)


def test_errors_carry_code_offset_and_box_path(tmp_path):
    # A spatial photo whose item property container (ipco) is cut to 3 bytes: a damaged input, refused by the
    # integrity check every writer runs first (issue 28), naming the cut box's offset and path.
    data = bytearray(open(GRID, "rb").read())
    ipco = data.find(b"ipco") - 4
    meta = data.find(b"meta") - 4
    assert ipco > meta >= 0
    data[ipco:ipco + 4] = (3).to_bytes(4, "big")
    bad = tmp_path / "bad.heic"
    bad.write_bytes(bytes(data))
    with pytest.raises(sm.ParseError) as e:
        sm.edit(bad, tmp_path / "out.heic", baseline_um=60000)
    err = e.value
    assert err.code == sm.Status.PARSE and err.name == "SM_ERR_PARSE"
    assert err.offset == ipco, (err.offset, err.message)
    assert err.box_path == "meta/iprp", err.box_path
    assert err.reason == "size-too-small"
    assert err.function == "sm_edit_apply" and "damaged or truncated" in err.message
    assert not (tmp_path / "out.heic").exists()


def test_movie_error_names_the_track(tmp_path):
    data = bytearray(open(need(SPATIAL_VIDEO), "rb").read())
    hvcc = data.find(b"hvcC") - 4
    data[hvcc:hvcc + 4] = (3).to_bytes(4, "big")
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    # A damaged input: refused by the integrity check every writer runs first (issue 28), naming the cut box.
    with pytest.raises(sm.ParseError) as e:
        sm.edit(bad, tmp_path / "out.mp4", baseline_um=60000)
    assert e.value.box_path == "moov/trak[0]/mdia/minf/stbl/stsd/hvc1" and e.value.offset == hvcc, e.value
    assert e.value.reason == "size-too-small" and not (tmp_path / "out.mp4").exists()


def test_argument_errors_are_value_errors():
    with pytest.raises(sm.InvalidArgumentError) as e:
        sm.SpatialFile.from_bytes(b"")
    assert isinstance(e.value, ValueError) and e.value.offset is None and e.value.box_path is None
    with pytest.raises(sm.ParseError):
        sm.SpatialFile.from_bytes(b"this is not a media file at all")


def test_closed_file_is_an_error_not_a_crash():
    f = sm.open(GRID)
    stale = f.handle
    f.close()
    with pytest.raises(sm.InvalidHandleError):
        _ = f.kind
    lib = sm._native.load()
    import ctypes
    k = ctypes.c_int32()
    assert lib.sm_file_kind(stale, ctypes.byref(k)) == sm.Status.INVALID_HANDLE
    assert lib.sm_file_free(stale) == sm.Status.INVALID_HANDLE


def test_threads_share_a_handle():
    errors = []
    with sm.open(GRID) as f:
        def work():
            try:
                for _ in range(50):
                    assert f.photo_eyes.left_item == 1
                    assert f.info()["spatial_photo"]["group_id"] > 0
            except Exception as e:  # noqa: BLE001
                errors.append(e)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors


def test_paths_may_be_pathlike(tmp_path):
    import pathlib
    with sm.open(pathlib.Path(GRID)) as f:
        assert f.path == GRID and os.path.exists(f.path)


def test_video_class_names_match_the_library():
    lib = sm._native.load()
    names = {lib.sm_video_classification_name(i).decode() for i in range(6)}
    assert names == {c.value for c in sm.VideoClass}, names


def test_info_by_path_is_the_command_lines_info():
    """``sm.info(path)`` routes as ``spatial-media info --json`` does: the same dict as an open file's for what our
    parsers read, and files only FFmpeg reads (here Matroska) too, which ``sm.open`` refuses."""
    with sm.open(GRID) as f:
        assert sm.info(GRID) == f.info()
    with pytest.raises(sm.SpatialMediaError):
        sm.info(os.path.join(os.path.dirname(GRID), "no-such-file.mkv"))


def test_info_by_path_reads_matroska(tmp_path):
    import shutil
    import subprocess
    ffmpeg = os.path.expanduser("~/.local/share/spatial-media/bin/ffmpeg")
    ffmpeg = ffmpeg if os.access(ffmpeg, os.X_OK) else shutil.which("ffmpeg")
    if ffmpeg is None:
        pytest.skip("no FFmpeg (scripts/setup.sh installs it) to make a Matroska file")
    mkv = str(tmp_path / "clip.mkv")
    subprocess.run([ffmpeg, "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x120:r=30:d=0.5",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", mkv], check=True)
    info = sm.info(mkv)
    assert info["file"] == mkv
    with pytest.raises(sm.SpatialMediaError):
        sm.open(mkv)
