"""Shared paths for the spatialmedia tests.

The tests import the *installed* package (scripts/sdk-check.sh builds a wheel, installs it into a fresh
virtual environment and runs `python -m pytest python/tests` there). To run them against a source
checkout instead: `PYTHONPATH=python SPATIALMEDIA_LIB=.build/debug python3 -m pytest python/tests`.
Files from ../shared are used when present; tests that need a missing one are skipped.
"""
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FILES = os.path.join(ROOT, "Conformance", "files")
GRID = os.path.join(FILES, "heif_grid_ster.heic")
MOVIE_2D = os.path.join(FILES, "movie_moov_first.mp4")
SBS_Y4M = os.path.join(FILES, "sample_sbs_320x96.y4m")
SHARED = os.environ.get("SPATIALMEDIA_SHARED", os.path.join(ROOT, "..", "shared"))
CORPUS = os.path.join(SHARED, "corpus")
VISION_PRO = os.path.join(CORPUS, "spatial-photo", "vision-pro.HEIC")
SPATIAL_VIDEO = os.path.join(CORPUS, "spatial-video", "stereo_spatial.mp4")


def need(path: str) -> str:
    if not os.path.exists(path):
        pytest.skip(f"{path} not present")
    return path


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


@pytest.fixture
def sbs_png(tmp_path):
    """A 128x64 side-by-side PNG (two 64x64 eyes)."""
    p = tmp_path / "sbs.png"
    write_png(str(p), 128, 64, lambda x, y: ((x * 2) % 256, (y * 4) % 256, 200 if x < 64 else 40))
    return p
